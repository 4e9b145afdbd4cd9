// Setup and invitation links carry their one-time code after "#code=": the fragment never reaches
// a server, a log line or a Referer header. This copies it into the form and removes it from the
// address bar (and so from the history).

const match = /[#&]code=([A-Za-z0-9_-]{43})/.exec(window.location.hash);
if (match) {
  const input = document.getElementById('setup-code') || document.getElementById('invitation-code');
  if (input && !input.value) input.value = match[1];
  history.replaceState(null, '', window.location.pathname + window.location.search);
}

// Small behaviour shared by every dashboard page: copy buttons, confirmations for destructive
// forms, and filters that apply on change. Everything works without it except copying.

function flash(status, text) {
  if (!status) return;
  status.textContent = text;
  setTimeout(() => {
    if (status.textContent === text) status.textContent = '';
  }, 4000);
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // http on another host than localhost is not a secure context: fall back to a selection.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy-target]') : null;
  if (!button) return;
  const target = document.getElementById(button.getAttribute('data-copy-target'));
  if (!target) return;
  const text = 'value' in target && target.tagName !== 'CODE' ? target.value : target.textContent.trim();
  const status = button.nextElementSibling?.classList.contains('copy-status')
    ? button.nextElementSibling
    : null;
  try {
    await copyText(text);
    flash(status, 'Copied');
  } catch {
    if (typeof target.select === 'function') target.select();
    flash(status, 'Press Ctrl+C to copy');
  }
});

document.addEventListener('submit', (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.getAttribute('data-confirm') : null;
  if (question && !window.confirm(question)) event.preventDefault();
});

for (const form of document.querySelectorAll('form[data-auto-submit]')) {
  for (const select of form.querySelectorAll('select')) {
    select.addEventListener('change', () => form.requestSubmit());
  }
}

// A key or invitation link shown once gets the focus, so keyboard and screen-reader users land on it.
document.getElementById('new-key')?.focus();

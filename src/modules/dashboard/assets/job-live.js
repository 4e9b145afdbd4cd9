// One job, live: while it runs, its event stream appends each new event to the timeline and
// replaces the status block, the actions and (when it ends) the diff with the server's rendering.

const root = document.getElementById('job-live');
if (root && root.dataset.status === 'active') {
  const { projectId, jobId, lastEventId } = root.dataset;
  const live = document.getElementById('live-status');
  const url = `/api/dashboard/projects/${encodeURIComponent(projectId)}/jobs/${encodeURIComponent(jobId)}/live?after=${encodeURIComponent(lastEventId)}`;
  const source = new EventSource(url);
  const setHtml = (id, html) => {
    const element = document.getElementById(id);
    if (element && typeof html === 'string') element.innerHTML = html;
  };
  if (live) live.textContent = 'Live: new events appear as they happen.';
  source.addEventListener('job', (event) => {
    const data = JSON.parse(event.data);
    const timeline = document.getElementById('job-events');
    for (const html of data.eventsHtml || []) timeline?.insertAdjacentHTML('beforeend', html);
    setHtml('job-summary', data.summaryHtml);
    // Keep a follow-up being typed: the actions are replaced only when the status changes.
    if (root.dataset.status !== data.status) setHtml('job-actions', data.actionsHtml);
    if (data.diffHtml) setHtml('job-diff', data.diffHtml);
    root.dataset.status = data.status;
  });
  source.addEventListener('end', () => {
    source.close();
    if (live) live.textContent = `The job is ${root.dataset.status}.`;
  });
  window.addEventListener('pagehide', () => source.close());
}

// The jobs list, live: one event stream watches the active jobs on the page and sends each row
// again, rendered by the server, whenever its job changes; a poll every 10 s adds jobs created
// elsewhere (API, CLI, another browser) to the first page.

const table = document.getElementById('jobs-table');
const body = document.getElementById('jobs-body');
const live = document.getElementById('live-status');
if (table && body) {
  const projectId = table.dataset.projectId;
  const filter = table.dataset.statusFilter;
  const base = `/api/dashboard/projects/${encodeURIComponent(projectId)}/jobs`;
  let source = null;

  const rowFromHtml = (html) => {
    const template = document.createElement('template');
    template.innerHTML = html.trim();
    return template.content.firstElementChild;
  };

  const activeIds = () =>
    [...body.querySelectorAll('tr[data-status="active"]')].map((row) => row.dataset.jobId);

  const watch = () => {
    source?.close();
    source = null;
    const ids = activeIds();
    if (ids.length === 0) {
      if (live) live.textContent = '';
      return;
    }
    if (live) live.textContent = `Watching ${ids.length} running job${ids.length === 1 ? '' : 's'}…`;
    source = new EventSource(`${base}/live?ids=${ids.join(',')}`);
    source.addEventListener('job', (event) => {
      const data = JSON.parse(event.data);
      const row = document.getElementById(`job-row-${data.id}`);
      if (!row) return;
      if (data.gone) return row.remove();
      const fresh = rowFromHtml(data.html);
      if (filter && data.status !== filter) fresh.classList.add('leaving');
      row.replaceWith(fresh);
      if (data.status !== 'active' && live) live.textContent = `A job is now ${data.status}.`;
    });
    source.addEventListener('end', () => {
      source?.close();
      source = null;
      if (live && activeIds().length === 0) live.textContent = 'All jobs on this page have finished.';
    });
  };

  const addNewJobs = async () => {
    if (table.dataset.firstPage !== 'true' || document.hidden) return;
    try {
      const response = await fetch(`${base}${filter ? `?status=${encodeURIComponent(filter)}` : ''}`, {
        headers: { accept: 'application/json' },
        credentials: 'same-origin',
      });
      if (!response.ok) return;
      const { jobs } = await response.json();
      let added = false;
      for (const job of [...jobs].reverse()) {
        if (document.getElementById(`job-row-${job.id}`)) continue;
        body.prepend(rowFromHtml(job.html));
        added = true;
      }
      if (added) {
        document.getElementById('no-jobs')?.remove();
        watch();
      }
    } catch {
      // Offline for a moment: the next poll tries again.
    }
  };

  watch();
  setInterval(addNewJobs, 10_000);
  window.addEventListener('pagehide', () => source?.close());
}

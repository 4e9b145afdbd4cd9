// Draws the stacked human / AI chart with Chart.js (served from the installed package) from the
// JSON the page carries. The same numbers are in the table under the chart.

const canvas = document.getElementById('traffic-chart');
const source = document.getElementById('traffic-data');
if (canvas && source && window.Chart) {
  const { interval, buckets } = JSON.parse(source.textContent);
  const label = (start) =>
    interval === 'day' ? start.slice(0, 10) : `${start.slice(5, 10)} ${start.slice(11, 16)}`;
  new window.Chart(canvas, {
    type: 'bar',
    data: {
      labels: buckets.map((b) => label(b.start)),
      datasets: [
        { label: 'Human', data: buckets.map((b) => b.human), backgroundColor: '#2563eb', stack: 'views' },
        { label: 'AI', data: buckets.map((b) => b.ai), backgroundColor: '#ea580c', stack: 'views' },
      ],
    },
    options: {
      animation: false,
      maintainAspectRatio: false,
      responsive: true,
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { stacked: true, ticks: { maxRotation: 0, autoSkip: true } },
        y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  });
}

// Draws the bar chart of US dollars spent on models per day with Chart.js (served from the
// installed package) from the JSON the page carries. The same numbers are in the table under it.

const canvas = document.getElementById('spend-chart');
const source = document.getElementById('spend-data');
if (canvas && source && window.Chart) {
  const { days } = JSON.parse(source.textContent);
  new window.Chart(canvas, {
    type: 'bar',
    data: {
      labels: days.map((d) => d.day),
      datasets: [{ label: 'US dollars', data: days.map((d) => d.costUsd), backgroundColor: '#2563eb' }],
    },
    options: {
      animation: false,
      maintainAspectRatio: false,
      responsive: true,
      interaction: { mode: 'index', intersect: false },
      scales: { x: { ticks: { maxRotation: 0, autoSkip: true } }, y: { beginAtZero: true } },
      plugins: { legend: { display: false } },
    },
  });
}

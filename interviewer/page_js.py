"""The page's own script, run once in the browser when the page loads."""

COUNTDOWN_JS = """
() => {
  // Rapid-fire: count down the seconds left on the question shown (the server marks late
  // answers; this only shows the time). Each new status line starts its own count.
  setInterval(() => {
    for (const el of document.querySelectorAll('.countdown')) {
      if (!el.dataset.t0) {  // first sight: the seconds left as the server wrote them
        el.dataset.t0 = Date.now();
        el.dataset.s0 = (el.textContent.match(/(\\d+) s left/) || [0, 0])[1];
      }
      const left = Math.round(Number(el.dataset.s0) - (Date.now() - el.dataset.t0) / 1000);
      el.textContent = left > 0 ? `${left} s left` : "time's up: answer now (marked late)";
    }
  }, 1000);
  // The typed draft survives a reload: kept in this browser until it is sent.
  const box = () => document.querySelector('#answer textarea');
  const saved = localStorage.getItem('interviewer-draft');
  const restore = setInterval(() => {
    const el = box();
    if (!el) return;
    clearInterval(restore);
    if (saved && !el.value) {
      el.value = saved;
      el.dispatchEvent(new Event('input', {bubbles: true}));
    }
  }, 200);
}
"""

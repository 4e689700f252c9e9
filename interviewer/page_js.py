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
  // The typed draft survives a reload: kept in this browser until it is sent, with the
  // session it was typed in, and put back only into that session (on a shared browser the
  // next person to sign in must not get it).
  const box = () => document.querySelector('#answer textarea');
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem('interviewer-draft') || '{}') || {}; } catch (e) {}
  const started = Date.now();
  const restore = setInterval(() => {
    const el = box();
    const status = document.querySelector('#status')?.innerText || '';
    if (Date.now() - started > 60000) clearInterval(restore);
    if (!el || !/Press Start|Session /.test(status)) return;  // until the page has loaded
    clearInterval(restore);
    const shown = (status.match(/Session ([0-9a-f]+)/) || [])[1];
    if (saved.t && shown && saved.s === shown && !el.value) {
      el.value = saved.t;
      el.dispatchEvent(new Event('input', {bubbles: true}));
    }
  }, 200);
}
"""

# Kept on every change of the answer box, with the session shown in the status line.
DRAFT_JS = """
(t) => {
  const status = document.querySelector('#status')?.innerText || '';
  const s = (status.match(/Session ([0-9a-f]+)/) || [])[1] || '';
  localStorage.setItem('interviewer-draft', JSON.stringify({s, t: t || ''}));
}
"""

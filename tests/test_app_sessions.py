"""The real app in headless Chromium: opening a past session, and what the page says when
there is nothing to open or report (a user trial, ui40); a skipped follow-up in the report and
the mode selector's words (ui41). The `server` and `browser` fixtures are conftest's, the page
helpers test_app_browser's."""

from __future__ import annotations

from pathlib import Path

import pytest

from interviewer.session import MODE_INFO
from tests.test_app_browser import (
    ANSWER,
    CHROMIUM,
    open_page,
    plain,
    rubrics_by_question,
    send,
    shot,
    skip_to_rubric,
    start,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="`make test` installs chromium"),
]
# Gradio's mark on an output whose event failed: a red "Error" over the component.
BADGES = "document.querySelectorAll('.error').length"


def finish(page, text: str) -> None:
    """Answer the question shown, end the interview, and wait for its report and files."""
    send(page, text, page.locator("#chat .message").count())
    page.click("#end")
    page.wait_for_function(
        "document.querySelector('#report').innerText.includes('Interview report')", timeout=30_000
    )
    page.locator("#downloads a").first.wait_for(timeout=30_000)


def start_again(page, last: str) -> str:
    """Start another interview on a page that shows an ended one (its status already says
    "Session"): done when the status names the new session."""
    page.click("#start")
    page.wait_for_function(
        f"/Session (?!{last})\\S+ ·.* question/.test(document.querySelector('#status').innerText)",
        timeout=60_000,
    )
    return page.inner_text("#status").split()[1]


def downloads(page) -> list[str]:
    links = page.locator("#downloads a")
    return [(links.nth(i).get_attribute("href") or "").rsplit("/", 1)[-1] for i in range(3)]


CHART = (
    "[...document.querySelectorAll('.block')].find(b => b.innerText.startsWith('Score by topic'))"
    "?.innerText || ''"
)


def chart_of(page) -> str:
    """The chart's text (its title, axes and topics), once it has drawn and stopped changing:
    under load a first read caught it half drawn."""
    page.wait_for_function(f"({CHART}).split('\\n').length > 3", timeout=30_000)
    text = page.evaluate(CHART)
    for _ in range(20):
        page.wait_for_timeout(500)
        if (now := page.evaluate(CHART)) == text:
            return text
        text = now
    return text


def open_session(page, sid: str) -> None:
    page.fill("#resume-id textarea, #resume-id input", sid)
    page.click("#resume")


def test_opening_a_past_session_shows_its_own_report_chart_and_files(server, browser):
    """Session A opened after session B: the report, the chart and the downloads were B's."""
    page = open_page(browser.new_context(), server.url)
    first = start(page)
    finish(page, ANSWER)
    topics_a, chart_a = page.locator("#report table").first.inner_text(), chart_of(page)
    second = start_again(page, first)
    finish(page, "I don't know.")
    assert all(name.startswith(second) for name in downloads(page))
    page.click("text=Past sessions")
    open_session(page, first)
    page.wait_for_function(
        f"document.querySelector('#status').innerText.includes('{first}')", timeout=30_000
    )
    page.wait_for_function(
        f"[...document.querySelectorAll('#downloads a')].every(a => a.href.includes('{first}'))"
        " && document.querySelectorAll('#downloads a').length === 3",
        timeout=30_000,
    )
    assert sorted(downloads(page)) == sorted(f"{first}.{x}" for x in ("html", "json", "md"))
    assert page.locator("#report table").first.inner_text() == topics_a
    assert ANSWER[:40] in page.inner_text("#chat") and ANSWER[:40] in page.inner_text("#report")
    # The chart is A's again, as it was drawn when A ended (read once it has stopped changing:
    # a loaded run once caught it mid-redraw; the message shows both if it differs).
    for _ in range(10):
        if (chart := chart_of(page)) == chart_a:
            break
        page.wait_for_timeout(1000)
    assert chart == chart_a, (chart, chart_a)
    shot(page, server, "opened-past-session")


def test_an_id_that_is_not_this_browsers_gets_one_message_and_nothing_else_changes(server, browser):
    theirs = open_page(browser.new_context(), server.url)
    other = start(theirs)
    page = open_page(browser.new_context(), server.url)
    mine = start(page)
    send(page, "My own answer about HBM bandwidth.", page.locator("#chat .message").count())
    before = {k: page.inner_text(k) for k in ("#status", "#chat", "#grade-card")}
    page.click("text=Past sessions")
    for typed in (other, "no-such-session"):
        open_session(page, typed)
        page.wait_for_function(
            "document.querySelector('#resume-note').innerText.includes('No session with that id')",
            timeout=30_000,
        )
        page.wait_for_timeout(500)
        assert {k: page.inner_text(k) for k in before} == before  # the page as it was
        assert mine in page.inner_text("#status")
        assert page.evaluate(BADGES) == 0 and page.locator(".toast-body").count() == 0
    shot(page, server, "unknown-session-id")


def test_before_start_the_buttons_are_off_and_the_report_says_why_there_is_none(server, browser):
    page = open_page(browser.new_context(), server.url)
    for button in ("#send", "#skip", "#hint", "#repeat", "#end"):
        assert page.locator(button).is_disabled(), button
    page.click("#build-report")
    page.wait_for_function(
        "document.querySelector('#report').innerText.includes('No report yet')", timeout=30_000
    )
    page.wait_for_timeout(500)
    assert page.evaluate(BADGES) == 0 and page.locator(".toast-body").count() == 0
    shot(page, server, "report-before-start")
    page.click("#review")  # nothing is due yet: a warning, and no "Error" on the page
    page.wait_for_function(
        "document.querySelector('.toast-body')?.innerText.includes('nothing is due')",
        timeout=30_000,
    )
    assert page.evaluate(BADGES) == 0 and "Press Start" in page.inner_text("#status")
    start(page)
    assert all(page.locator(b).is_enabled() for b in ("#send", "#skip", "#hint", "#end"))


def test_a_skipped_follow_up_is_in_the_report_and_the_mode_says_when_one_comes(server, browser):
    """A phone screen as the ui41 trial ran it: the mode's words promised a follow-up on any
    missed point, and the follow-up the candidate skipped was missing from the report."""
    page = open_page(browser.new_context(), server.url)
    assert plain(MODE_INFO) in plain(page.inner_text("#mode"))
    start(page)  # a phone screen, the default
    by_text = rubrics_by_question()
    # A question with enough points that one of them leaves a gap.
    rubric = skip_to_rubric(page, by_text, points=3, tries=3)
    send(page, rubric.key_points[0].paraphrases[0], page.locator("#chat .message").count())
    assert "follow-up" in page.inner_text("#status")
    follow_up = plain(page.locator("#chat .message").last.inner_text())
    page.click("#skip")
    page.wait_for_function(
        "!document.querySelector('#status').innerText.includes('follow-up')", timeout=30_000
    )
    page.click("#end")
    page.wait_for_function(
        "document.querySelector('#report').innerText.includes('Interview report')", timeout=30_000
    )
    questions = plain(page.inner_text("#report").split("Questions", 1)[-1])
    assert f"Follow-up: {follow_up} — skipped" in questions
    shot(page, server, "skipped-follow-up-report")


def _signed_in(context, url: str, name: str, password: str):
    """Gradio's login form, then the page."""
    page = context.new_page()
    page.goto(url)
    page.fill("input[type=text]", name)
    page.fill("input[type=password]", password)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "/Press Start|Session /.test(document.querySelector('#status')?.innerText || '')",
        timeout=60_000,
    )
    return page


def test_signed_in_the_sessions_are_the_accounts_not_the_browsers(tmp_path, built_index, browser):
    """A team lead's trial (J): with logins, after Alice signed out and Bob signed in on the
    same browser, Bob was shown her interview, her typed draft, her past sessions and review
    queue; Alice on another machine saw none of her history."""
    import shutil

    from tests.test_app_browser import Server

    settings, _ = built_index
    data = tmp_path / "data"
    shutil.copytree(settings.data_dir, data)
    logins = tmp_path / "logins"
    logins.write_text("ana:ana-pw\nbo:bo-pw\n")
    srv = Server(data, INTERVIEWER_AUTH_FILE=str(logins)).start()
    try:
        shared = browser.new_context()
        page = _signed_in(shared, srv.url, "ana", "ana-pw")
        session = start(page)
        page.fill("#answer textarea", "Ana's draft, not sent")
        page.wait_for_timeout(500)  # the draft is kept as it is typed
        page.goto(srv.url + "logout")
        page = _signed_in(shared, srv.url, "bo", "bo-pw")
        page.wait_for_timeout(1500)  # a draft would be put back by now
        assert "Press Start" in page.inner_text("#status")
        assert page.input_value("#answer textarea") == ""
        page.click("text=Past sessions")
        assert session not in page.inner_text("#history")
        shot(page, srv, "signed-in-bo")
        elsewhere = _signed_in(browser.new_context(), srv.url, "ana", "ana-pw")
        elsewhere.click("text=Past sessions")
        elsewhere.wait_for_function(
            f"document.querySelector('#history')?.innerText.includes('{session}')", timeout=30_000
        )
        elsewhere.fill("#resume-id textarea, #resume-id input", session)
        elsewhere.click("#resume")
        elsewhere.wait_for_function(
            f"document.querySelector('#status').innerText.includes('{session}')", timeout=30_000
        )
    finally:
        srv.stop()

"""Start the mock interview in the browser: `python app.py` (or `interviewer app`)."""

import sys

from interviewer.errors import InterviewerError
from interviewer.webapp import main

if __name__ == "__main__":
    try:
        main()
    except InterviewerError as e:  # a bad setting or login file: a message, not a traceback
        sys.exit(f"error: {e}")

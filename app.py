"""Start the mock interview in the browser: `python app.py` (or `interviewer app`)."""

from interviewer.webapp import main

if __name__ == "__main__":
    main()

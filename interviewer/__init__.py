"""AI mock interviewer and grader for GPU, CUDA and ML-infrastructure roles."""

__version__ = "0.1.0"

"""The episode runner: run directories, resume, executors."""

"""The platform's Python runner: serves a service agent's ASGI `app` or runs a job agent's script.

Run as `python -m svc_runner <serve|run> --app-dir DIR --entrypoint FILE [--port P] [--host H]`
with this package's parent directory and `DIR/.svc/deps` on PYTHONPATH. See `__main__.py` for the
command line and exit codes, `errors.py` for how a failure reaches the platform.
"""

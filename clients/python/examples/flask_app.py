"""A Flask app limited by Tollgate's decorator.

    TOLLGATE_URL=redis://localhost:6379 flask --app flask_app run
"""
import os

import redis
from flask import Flask, request

import tollgate
from tollgate.middleware.flask import limit

limiter = tollgate.Limiter(redis.Redis.from_url(os.environ.get("TOLLGATE_URL", "redis://localhost")))
app = Flask(__name__)


@app.post("/comments")
@limit(limiter, "comment", key=lambda: request.headers.get("X-User"),
       skip=lambda: request.headers.get("X-Staff") == "1")
def comment() -> dict:
    return {"ok": True}

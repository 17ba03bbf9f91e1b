"""Small projects written for the scan tests: a FastAPI-like Python app and a Node
app, each with the tricky cases a scanner must not be fooled by."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

FASTAPI_APP = '''"""Orders API."""
import os

import bcrypt
import jwt
from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
# import redis
# from celery import Celery

app = FastAPI()
app.add_middleware(CORSMiddleware, allow_origins=["https://shop.example"], allow_credentials=True)
NOTE = "this app does not use redis or import celery"
SECRET = os.environ["ZEBRAFISH_SIGNING_KEY"]


@app.get("/orders/{order_id}")
async def read_order(order_id: int):
    cursor = await connect()
    cursor.execute(f"SELECT * FROM quokka_orders WHERE id = {order_id}")
    return cursor.fetchone()


def make_token(user_id: str) -> str:
    return jwt.encode({"sub": user_id}, SECRET, algorithm="HS256")


def hash_password(password: str) -> bytes:
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt())
'''

REQUIREMENTS = "fastapi==0.110.0\nPyJWT==2.8.0  # tokens\nbcrypt\n"

NODE_SERVER = '''const express = require("express");
const cors = require("cors");
const jwt = require("jsonwebtoken");
// const axios = require("axios");
/* import mongoose from "mongoose";
   require("redis") */
const note = "require('mongoose') is only named in this string";

const app = express();
app.use(cors());

app.post("/login", (req, res) => {
  const token = jwt.sign({ sub: req.body.user }, process.env.WOMBAT_SECRET);
  res.json({ token });
});
'''

PACKAGE_JSON = '{"name": "wombat-api", "dependencies": {"express": "^4.19.2", "cors": "^2.8.5", ' \
               '"jsonwebtoken": "^9.0.2"}}\n'


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return root


def python_project(root: Path) -> Path:
    """The FastAPI app, a vendored copy of a library, a binary file, a huge file and a symlink loop."""
    write(root, {
        "app/main.py": FASTAPI_APP,
        "requirements.txt": REQUIREMENTS,
        "vendor/redis_copy/client.py": "import redis\nfrom celery import Celery\n",
        "node_modules/left-pad/index.js": 'const jwt = require("jsonwebtoken");\n',
        "assets/logo.png": b"\x89PNG\r\n\x1a\n\0\0import redis\n",
        "huge.py": "import redis\n" + "x = 1\n" * 200_000,
        "broken.py": "import celery\ndef broken(:\n",
    })
    os.symlink(root, root / "loop")  # a folder that contains itself
    os.symlink("/etc", root / "outside")  # a link out of the project
    return root


def node_project(root: Path) -> Path:
    return write(root, {"server.js": NODE_SERVER, "package.json": PACKAGE_JSON})


def git_repository(root: Path, files: dict[str, str]) -> Path:
    write(root, files)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "test"], check=True)
    return root

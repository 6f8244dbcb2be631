#!/usr/bin/env python3
"""A stand-in for the Hugging Face Hub on loopback, for Folio's download tests (stdlib only).

Two HTTP servers: the "hub" (JSON API, /resolve/, search) and a "cdn" on a second port, where the hub
redirects LFS files, as huggingface.co redirects to its CDN. Repositories, their files and faults come
from a JSON spec (see tests/hub/fake_hub_server.h); faults can also be set while it runs.

    python3 fake_hub.py --spec SPEC.json   ->  prints "PORTS <hub> <cdn>", serves until stdin closes

Faults, keyed "org/name/path" (the byte-serving answer of that file) or "org/name/@api" (its JSON
answers), each {"kind": ..., "times": N (default 1, -1 = always)}:
  drop       send the headers of the whole answer, stop after absolute byte "at", close the socket
  corrupt    flip the byte at absolute offset "at"
  error      answer "status" (default 500)
  no_range   ignore Range: always 200 with the whole file
  bad_range  answer 206 with a Content-Range that starts at 0 whatever was asked
  slow       send "chunk" bytes, then sleep "delay" seconds, to the end
  stall      send up to byte "at", then go quiet for "seconds", then close
Control: GET /_test/log (requests seen), POST /_test/reset, POST /_test/faults (a JSON object of faults).
"""
import argparse
import hashlib
import json
import os
import random
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, unquote, urlsplit

LOCK = threading.Lock()
LOG = []
FAULTS = {}
FAULT_USES = {}


def git_blob_sha1(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class File:
    def __init__(self, path, spec):
        self.path = path
        if "text" in spec:
            self.data = spec["text"].encode("utf-8")
        elif "file" in spec:
            with open(spec["file"], "rb") as f:
                self.data = f.read()
        elif "random" in spec:
            r = spec["random"]
            self.data = random.Random(r.get("seed", 0)).randbytes(r["size"])
        else:
            raise ValueError("file %s: give text, file or random" % path)
        self.lfs = spec.get("lfs", False)
        self.listed_size = spec.get("listed_size", len(self.data))
        self.sha256 = hashlib.sha256(self.data).hexdigest()
        self.sha1 = git_blob_sha1(self.data)
        pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n" % (self.sha256, len(self.data))
        self.pointer_oid = git_blob_sha1(pointer.encode())
        self.pointer_size = len(pointer)

    def etag(self):
        return self.sha256 if self.lfs else self.sha1


class Repo:
    def __init__(self, repo_id, spec):
        self.id = repo_id
        self.refs = dict(spec.get("refs", {}))
        self.commits = {c: {p: File(p, f) for p, f in v["files"].items()} for c, v in spec["commits"].items()}
        self.token = spec.get("gated_token")
        self.gated = spec.get("gated", "manual" if self.token else False)
        self.tags = spec.get("tags", [])
        self.downloads = spec.get("downloads", 0)
        self.likes = spec.get("likes", 0)
        self.safetensors = spec.get("safetensors")
        self.page_size = spec.get("page_size", 0)
        self.relative_redirect = spec.get("relative_redirect", False)
        # Entries written into the tree listing as they are (a hostile or broken server).
        self.extra_tree_entries = spec.get("extra_tree_entries", [])

    def commit_of(self, rev):
        if rev in self.commits:
            return rev
        return self.refs.get(rev)


REPOS = {}
PORTS = {}


def take_fault(key):
    """The fault for this key if it still applies to this request (and count the use)."""
    with LOCK:
        f = FAULTS.get(key)
        if not f:
            return None
        used = FAULT_USES.get(key, 0)
        times = f.get("times", 1)
        if times >= 0 and used >= times:
            return None
        FAULT_USES[key] = used + 1
        return f


class Handler(BaseHTTPRequestHandler):
    role = "hub"
    server_version = "FakeHub/1.0"

    def log_message(self, *args):
        pass

    def record(self):
        with LOCK:
            LOG.append({"server": self.role, "method": self.command, "path": self.path,
                        "range": self.headers.get("Range"), "authorization": self.headers.get("Authorization")})

    # ---- answers ----
    def send_json(self, obj, status=200, extra=None):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error_code(self, status, code, message):
        body = json.dumps({"error": message}).encode()
        self.send_response(status)
        if code:
            self.send_header("X-Error-Code", code)
        self.send_header("X-Error-Message", message)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_bytes(self, data, key, headers):
        """The file's bytes with Range support, through the fault for `key` if any."""
        fault = take_fault(key) or {}
        kind = fault.get("kind")
        if kind == "error":
            return self.send_error_code(fault.get("status", 500), None, "injected server error")
        start = 0
        rng = self.headers.get("Range")
        if rng and kind != "no_range":
            start = int(rng.split("=")[1].split("-")[0])
            if start >= len(data) and len(data) > 0:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % len(data))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        partial = rng is not None and kind != "no_range"
        if kind == "bad_range":
            start = 0
        self.send_response(206 if partial else 200)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Accept-Ranges", "bytes")
        if partial:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
        self.send_header("Content-Length", str(len(data) - start))
        self.end_headers()
        if self.command == "HEAD":
            return
        body = bytearray(data[start:])
        if kind == "corrupt":
            at = fault.get("at", 0) - start
            if 0 <= at < len(body):
                body[at] ^= 0xFF
        if kind in ("drop", "stall"):
            upto = max(0, fault.get("at", 0) - start)
            self.wfile.write(bytes(body[:upto]))
            self.wfile.flush()
            if kind == "stall":
                time.sleep(fault.get("seconds", 5))
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if kind == "slow":
            chunk = fault.get("chunk", 1024)
            for i in range(0, len(body), chunk):
                self.wfile.write(bytes(body[i:i + chunk]))
                self.wfile.flush()
                time.sleep(fault.get("delay", 0.01))
            return
        self.wfile.write(bytes(body))

    def check_access(self, repo):
        if not repo.token:
            return True
        auth = self.headers.get("Authorization")
        if auth is None:
            self.send_error_code(401, "GatedRepo", "Access to model %s is restricted. You must have access to it and be "
                                                   "authenticated to access it. Please log in." % repo.id)
            return False
        if auth != "Bearer " + repo.token:
            self.send_error_code(403, "GatedRepo", "Access to model %s is restricted and you are not in the authorized "
                                                   "list. Visit https://huggingface.co/%s to ask for access." % (repo.id, repo.id))
            return False
        return True

    def find_repo(self, org, name):
        repo = REPOS.get(org + "/" + name)
        if not repo:
            self.send_error_code(404, "RepoNotFound", "Repository not found")
        return repo

    def api_fault(self, repo):
        f = take_fault(repo.id + "/@api")
        if f and f.get("kind") == "error":
            self.send_error_code(f.get("status", 500), None, "injected server error")
            return True
        return False

    # ---- routes ----
    def do_HEAD(self):
        self.do_GET()

    def do_POST(self):
        self.record()
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        if self.path == "/_test/reset":
            with LOCK:
                LOG.clear()
                FAULT_USES.clear()
            return self.send_json({"ok": True})
        if self.path == "/_test/faults":
            with LOCK:
                FAULTS.update(json.loads(body or b"{}"))
                FAULT_USES.clear()
            return self.send_json({"ok": True})
        self.send_error_code(404, None, "no such endpoint")

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/_test/log":
            with LOCK:
                return self.send_json(list(LOG))
        self.record()
        raw = url.path.split("/")[1:]
        seg = [unquote(s) for s in raw]
        query = parse_qs(url.query)
        if self.role == "cdn":
            return self.cdn(seg, query)
        if seg[:2] == ["api", "models"] and len(seg) == 2:
            return self.search(query)
        if seg[:2] == ["api", "models"] and len(seg) >= 6 and seg[4] == "revision":
            return self.model_info(seg[2], seg[3], "/".join(seg[5:]))
        if seg[:2] == ["api", "models"] and len(seg) >= 6 and seg[4] == "tree":
            return self.tree(seg[2], seg[3], seg[5], query, url.query)
        if seg[:3] == ["api", "resolve-cache", "models"] and len(seg) >= 7:
            return self.resolve(seg[3], seg[4], seg[5], "/".join(seg[6:]), direct=True)
        if len(seg) >= 5 and seg[2] == "resolve":
            return self.resolve(seg[0], seg[1], seg[3], "/".join(seg[4:]))
        self.send_error_code(404, None, "no such endpoint: " + url.path)

    def search(self, query):
        text = query.get("search", [""])[0].lower()
        tags = query.get("filter", [])
        limit = int(query.get("limit", ["30"])[0])
        hits = [r for r in REPOS.values() if text in r.id.lower() and all(t in r.tags for t in tags)]
        hits.sort(key=lambda r: -r.downloads)
        out = []
        for r in hits[:limit]:
            m = {"_id": "id-" + r.id, "id": r.id, "downloads": r.downloads, "likes": r.likes, "gated": r.gated,
                 "pipeline_tag": "text-generation", "tags": r.tags, "lastModified": "2025-01-01T00:00:00.000Z"}
            if r.safetensors:
                m["safetensors"] = r.safetensors
            out.append(m)
        self.send_json(out)

    def model_info(self, org, name, rev):
        repo = self.find_repo(org, name)
        if not repo or not self.check_access(repo) or self.api_fault(repo):
            return
        commit = repo.commit_of(rev)
        if not commit:
            return self.send_error_code(404, "RevisionNotFound", "Invalid rev id: " + rev)
        self.send_json({"_id": "id-" + repo.id, "id": repo.id, "modelId": repo.id, "sha": commit, "gated": repo.gated,
                        "private": False, "tags": repo.tags,
                        "siblings": [{"rfilename": p} for p in sorted(repo.commits[commit])]})

    def tree(self, org, name, rev, query, raw_query):
        repo = self.find_repo(org, name)
        if not repo or not self.check_access(repo) or self.api_fault(repo):
            return
        commit = repo.commit_of(rev)
        if not commit:
            return self.send_error_code(404, "RevisionNotFound", "Invalid rev id: " + rev)
        entries, dirs = [], set()
        for p in sorted(repo.commits[commit]):
            f = repo.commits[commit][p]
            parts = p.split("/")
            for i in range(1, len(parts)):
                d = "/".join(parts[:i])
                if d not in dirs:
                    dirs.add(d)
                    entries.append({"type": "directory", "oid": "0" * 40, "size": 0, "path": d})
            e = {"type": "file", "oid": f.pointer_oid if f.lfs else f.sha1, "size": f.listed_size, "path": p}
            if f.lfs:
                e["lfs"] = {"oid": f.sha256, "size": f.listed_size, "pointerSize": f.pointer_size}
            entries.append(e)
        entries.extend(repo.extra_tree_entries)
        extra = {}
        if repo.page_size:
            cursor = int(query.get("cursor", ["0"])[0])
            page = entries[cursor:cursor + repo.page_size]
            if cursor + repo.page_size < len(entries):
                extra["Link"] = '<http://127.0.0.1:%d/api/models/%s/tree/%s?recursive=true&cursor=%d>; rel="next"' % (
                    PORTS["hub"], repo.id, quote(rev, safe=""), cursor + repo.page_size)
            entries = page
        self.send_json(entries, extra=extra)

    def resolve(self, org, name, rev, path, direct=False):
        repo = self.find_repo(org, name)
        if not repo or not self.check_access(repo):
            return
        commit = repo.commit_of(rev)
        if not commit:
            return self.send_error_code(404, "RevisionNotFound", "Invalid rev id: " + rev)
        f = repo.commits[commit].get(path)
        if not f:
            return self.send_error_code(404, "EntryNotFound", "%s does not exist on \"%s\"" % (path, rev))
        common = {"X-Repo-Commit": commit, "ETag": '"%s"' % f.etag()}
        if f.lfs:
            self.send_response(302)
            for k, v in common.items():
                self.send_header(k, v)
            self.send_header("X-Linked-Etag", '"%s"' % f.sha256)
            self.send_header("X-Linked-Size", str(len(f.data)))
            self.send_header("Location", "http://127.0.0.1:%d/cdn/%s?key=%s" % (PORTS["cdn"], f.sha256,
                                                                                quote(repo.id + "/" + path, safe="")))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if repo.relative_redirect and not direct:
            self.send_response(307)
            for k, v in common.items():
                self.send_header(k, v)
            self.send_header("Location", "/api/resolve-cache/models/%s/%s/%s" % (repo.id, commit, quote(path)))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_bytes(f.data, repo.id + "/" + path, common)

    def cdn(self, seg, query):
        if self.headers.get("Authorization") is not None:
            return self.send_error_code(400, None, "an Authorization header reached the CDN: the token leaked off the hub")
        key = query.get("key", [""])[0]
        sha = seg[1] if len(seg) > 1 else ""
        for repo in REPOS.values():
            for files in repo.commits.values():
                for f in files.values():
                    if f.sha256 == sha:
                        return self.send_bytes(f.data, key, {"ETag": '"cdn-%s"' % sha[:8]})
        self.send_error_code(404, None, "no such object")


class CdnHandler(Handler):
    role = "cdn"


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that hangs up mid-answer (a cancelled or verified-and-dropped download) is normal here.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", required=True)
    args = ap.parse_args()
    with open(args.spec) as f:
        spec = json.load(f)
    for repo_id, r in spec.get("repos", {}).items():
        REPOS[repo_id] = Repo(repo_id, r)
    FAULTS.update(spec.get("faults", {}))
    hub = Server(("127.0.0.1", 0), Handler)
    cdn = Server(("127.0.0.1", 0), CdnHandler)
    PORTS["hub"], PORTS["cdn"] = hub.server_address[1], cdn.server_address[1]
    for s in (hub, cdn):
        threading.Thread(target=s.serve_forever, daemon=True).start()
    print("PORTS %d %d" % (PORTS["hub"], PORTS["cdn"]), flush=True)
    # The test holds our stdin: when it goes away (test done, or crashed), so do we, at once (no
    # waiting for connections still open).
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A chat-app event receiver written from the spec alone (section 3.1), Python stdlib only.

It stands for a Python peer that knows nothing of the kit: it verifies X-RVC-Signature
(HMAC-SHA256 over f"{timestamp}.{raw_body}"), parses the TaskEvent envelope, reads task_done
{"result": {...}} and builds TaskFailure from task_failed payloads ignoring extra keys (as pydantic
does by default), dedupes on event_id and detects seq gaps, honouring "rvc_coalesced_seqs".

Usage: python-peer.receiver.py SECRET SUMMARY_PATH
Prints {"port": N} on its first stdout line. POST /events takes events; POST /control/block and
/control/release hold and free them; GET /control/held counts held requests; POST
/control/summary writes the JSON summary to SUMMARY_PATH (and answers it).
"""

import hashlib
import hmac
import json
import sys
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EVENT_TYPES = {"progress", "trigger_fired", "task_done", "task_failed", "watch_event"}
TERMINAL = {"task_done", "task_failed"}
MAX_SKEW_S = 300
COALESCED_KEY = "rvc_coalesced_seqs"

SECRET = sys.argv[1].encode()
SUMMARY_PATH = sys.argv[2]

lock = threading.Lock()
gate = threading.Event()
gate.set()
held = 0
seen_ids = set()
highest = {}  # task_id -> highest seq accepted
summary = {
    "accepted": 0,
    "duplicates": 0,
    "bad_signature": 0,
    "invalid": 0,
    "statuses": {},
    "types": {},
    "terminals": {},
    "failures_parsed": 0,
    "terminals_with_marker": 0,
    "coalesced_named": 0,
    "gaps": 0,
    "gap_details": [],
    "errors": [],
}


class Invalid(Exception):
    pass


def verify(headers, body):
    timestamp = headers.get("X-RVC-Timestamp", "")
    signature = headers.get("X-RVC-Signature", "")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > MAX_SKEW_S:
        return False
    mac = hmac.new(SECRET, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(signature, "sha256=" + mac)


def require(condition, what):
    if not condition:
        raise Invalid(what)


def parse_event(body, server):
    event = json.loads(body.decode("utf-8"))
    require(isinstance(event, dict), "body is not an object")
    require(event.get("schema_version") == 1, "schema_version")
    for key in ("event_id", "task_id", "server", "tool", "type", "ts"):
        require(isinstance(event.get(key), str) and event[key], key)
    require(event["server"] == server, "server differs from X-RVC-Server")
    require(event["type"] in EVENT_TYPES, "type")
    seq = event.get("seq")
    require(isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1, "seq")
    datetime.fromisoformat(event["ts"].replace("Z", "+00:00"))
    require(isinstance(event.get("payload"), dict), "payload")
    return event


def task_failure(payload):
    """TaskFailure(**payload) as pydantic builds it: known fields checked, extra keys ignored."""
    require(isinstance(payload.get("error_code"), str), "error_code")
    require(isinstance(payload.get("message"), str), "message")
    recoverable = payload.get("recoverable", True)
    require(isinstance(recoverable, bool), "recoverable")
    suggestions = payload.get("suggestions", [])
    require(isinstance(suggestions, list) and all(isinstance(s, str) for s in suggestions), "suggestions")
    return {"error_code": payload["error_code"], "message": payload["message"],
            "recoverable": recoverable, "suggestions": suggestions}


def coalesced_ranges(event):
    raw = event["payload"].get(COALESCED_KEY)
    if not isinstance(raw, list):
        return []
    ranges = []
    for item in raw:
        if isinstance(item, list) and len(item) == 2 and all(isinstance(v, int) for v in item):
            low, high = item[0], min(item[1], event["seq"] - 1)
            if 1 <= low <= high:
                ranges.append((low, high))
    return sorted(ranges)


def track(event):
    """Gap detection: the expected seq moves past the ranges a marker names right after it."""
    task, seq = event["task_id"], event["seq"]
    last = highest.get(task, 0)
    if seq <= last:
        return
    through = last
    for low, high in coalesced_ranges(event):
        if low > through + 1:
            break
        if high > through:
            summary["coalesced_named"] += high - through
            through = high
    if seq > through + 1:
        summary["gaps"] += 1
        summary["gap_details"].append({"task_id": task, "expected": through + 1, "got": seq})
    highest[task] = seq


def accept(event):
    kind = event["type"]
    if kind == "task_done":
        require(isinstance(event["payload"].get("result"), dict), "task_done result")
    if kind == "task_failed":
        task_failure(event["payload"])
        summary["failures_parsed"] += 1
    if event["event_id"] in seen_ids:
        summary["duplicates"] += 1
        return
    seen_ids.add(event["event_id"])
    summary["accepted"] += 1
    summary["types"][kind] = summary["types"].get(kind, 0) + 1
    if kind in TERMINAL:
        summary["terminals"][event["task_id"]] = {"seq": event["seq"], "type": kind}
        if coalesced_ranges(event):
            summary["terminals_with_marker"] += 1
    track(event)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, data=None):
        body = json.dumps(data if data is not None else {}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/control/held":
            with lock:
                self.answer(200, {"held": held})
        else:
            self.answer(404)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/control/block":
            gate.clear()
            self.answer(200)
        elif self.path == "/control/release":
            gate.set()
            self.answer(200)
        elif self.path == "/control/summary":
            with lock:
                data = json.dumps(summary, indent=1)
            with open(SUMMARY_PATH, "w", encoding="utf-8") as out:
                out.write(data)
            self.answer(200, json.loads(data))
        elif self.path == "/events":
            self.answer(*self.event(body))
        else:
            self.answer(404)

    def event(self, body):
        global held
        with lock:
            held += 1
        gate.wait(60)  # held by the test until /control/release (a safety net against hangs)
        with lock:
            held -= 1
            status, data = self.judge(body)
            summary["statuses"][str(status)] = summary["statuses"].get(str(status), 0) + 1
            return status, data

    def judge(self, body):
        if not verify(self.headers, body):
            summary["bad_signature"] += 1
            return 401, {"error": "bad_signature"}
        try:
            accept(parse_event(body, self.headers.get("X-RVC-Server", "")))
        except (Invalid, ValueError) as error:
            summary["invalid"] += 1
            summary["errors"].append(str(error))
            return 400, {"error": "invalid_event", "detail": str(error)}
        return 200, {"ok": True}


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A poster closing its keep-alive connection at shutdown resets it: not an error here.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

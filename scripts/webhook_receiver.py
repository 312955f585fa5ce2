"""A webhook receiver on a loopback port, for scripts/webhooks.py and scripts/bench_webhooks.py: it keeps every POST it
takes (its webhook-id, seqs and whether its Standard Webhooks signature is right) and answers 200 at once, or after
`delay` seconds."""

import base64
import hashlib
import hmac
import http.server
import json
import threading


class Receiver:
    def __init__(self, delay=0.0):
        self.delay = delay
        self.secret = None
        self.lock = threading.Lock()
        # One (webhook-id, [seqs], signed) per POST it answered 200, in the order they came.
        self.messages = []
        # POSTs that have begun to arrive, answered or not.
        self.arrivals = 0
        self.arrived = threading.Condition(self.lock)
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    receiver.arrivals += 1
                if receiver.delay:
                    threading.Event().wait(receiver.delay)
                message_id = self.headers.get("webhook-id", "")
                signed = receiver.verify(message_id, self.headers.get("webhook-timestamp", ""), body,
                                         self.headers.get("webhook-signature", ""))
                seqs = [change["seq"] for change in json.loads(body)["changes"]]
                with receiver.lock:
                    receiver.messages.append((message_id, seqs, signed))
                    receiver.arrived.notify_all()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def verify(self, message_id, timestamp, body, signature):
        if self.secret is None:
            return False
        key = base64.b64decode(self.secret.removeprefix("whsec_"))
        expected = hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
        return signature == "v1," + base64.b64encode(expected).decode()

    def seqs(self):
        """Every seq it took, with repeats, in the order they came."""
        with self.lock:
            return [seq for _, seqs, _ in self.messages for seq in seqs]

    def wait_for_seq(self, seq, seconds):
        """Waits until a message holding `seq` or a later one came, for at most `seconds`; whether one did."""
        with self.lock:
            return self.arrived.wait_for(lambda: any(seqs and seqs[-1] >= seq for _, seqs, _ in self.messages), seconds)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

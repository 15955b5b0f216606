#!/usr/bin/env python3
"""The mock model server the agent specs talk to: real HTTP on 127.0.0.1.

    python3 spec/mock/server.py DIR

binds an ephemeral port, prints "PORT PID" on one line and serves until it
is killed (or its parent goes away). Python's standard library only.

Scenarios. A request for /s/NAME/... plays the scenario DIR/NAME.json, a JSON
list of steps, one step a request, in order ("times": n repeats a step).
The path picks the wire format reply, refusal, error and stream are sent in:
.../v1/messages is Anthropic's Messages API, .../api/chat is Ollama's chat
(NDJSON unless the request says "stream": false), .../models/M:generateContent
Gemini's (and :streamGenerateContent its server-sent events), .../responses
OpenAI's Responses API, anything else OpenAI's Chat Completions.
Every request is appended to DIR/NAME.log as one JSON line:
{"method", "target", "path", "headers" (names lower-cased), "body", "t" (ms)}.
A request past the last step gets 418 and {"error": {"message": "mock: ..."}}.

A step (all fields optional):
  delay_ms        wait before answering
  status          the HTTP status (default 200)
  headers         extra response headers {name: value}
  body            the raw body (a string), or
  body_hex        the raw body as hex digits (any bytes: invalid UTF-8...), or
  json            a value sent as JSON, or
  reply           an OpenAI chat completion whose message content is this text
  by_turn         a list of texts: the reply is the one at the number of assistant
                  messages in the request (first attempt 0, its retry 1, ...), so
                  concurrent conversations each get their own turn
    finish        its finish_reason (default "stop")
    usage         [prompt_tokens, completion_tokens] (default [11, 7]; null: none)
    usage_raw     the provider's whole usage object, sent as it is instead
                  (OpenAI, Anthropic: "usage"; Gemini: "usageMetadata";
                  Ollama: its fields merged into the last object)
  refusal         a chat completion whose message refuses with this text
  tool_calls      [{name, arguments (text or a value), id?}]: the message calls
                  these tools (finish "tool_calls"; streamed: two argument
                  fragments per call, after the content pieces)
  error           {status, message, type, code}: an OpenAI error body
  stream          a list of content pieces sent as server-sent events
  stream_text     a text streamed in pieces of 1 to 17 characters, their sizes drawn
                  from a random generator seeded with `seed` (default 1), as `stream`;
                  with `seed`, tool_calls' streamed arguments are cut alike (OpenAI
                  and Anthropic), and the events go out in writes of up to 64
    chunk_delay_ms  between events; finish and usage as for reply
    reset_after_events  the connection is reset after that many events (a stream
                  broken in mid-reply: the client's transport retries)
    stream_error  {message, type}: after the pieces, an error instead of the end
                  (OpenAI: an event {"error": ...}; Anthropic: event "error";
                  Ollama: a line {"error": message})
  blocks          Anthropic: the message's content blocks as they are
  tool_calls      Anthropic: tool_use blocks after the text (stop_reason
                  "tool_use"; streamed: input_json_delta in two fragments)
Responses API: reply is a message item's output_text, refusal its refusal
part, tool_calls function_call items (arguments as text), reasoning: true
puts a reasoning item first; finish "length" is status incomplete with
incomplete_details.reason max_output_tokens, another finish that reason;
usage is input_tokens and output_tokens (with zero details); error is an
OpenAI error body; stream sends the typed events (response.created, ...,
response.output_text.delta per piece, ..., response.completed or
response.incomplete), stream_error an "error" event after the pieces,
failed {code, message} a response.failed at the end.
Gemini: finish "stop" is finishReason STOP, "length" MAX_TOKENS, others as
they are; refusal is finishReason SAFETY (or the step's finish) with this text
as a part when not empty, finish_message as finishMessage, blocked_category a
safety rating blocked; blocked {reason, message} is a prompt blocked
(promptFeedback, no candidate); tool_calls are functionCall parts (an id only
when the call has one); parts are the candidate's parts as they are; error is
{"error": {code, message, status (from the status by default: 429
RESOURCE_EXHAUSTED, 503 UNAVAILABLE, ...), details}}, with retry_delay ("2s")
as a RetryInfo; usage is promptTokenCount and candidatesTokenCount.
Anthropic: finish "stop" is stop_reason "end_turn", "length" "max_tokens",
others as they are; refusal is stop_reason "refusal" with this text (and
stop_details, when the step has it, as it is: plain in the message, streamed
in message_delta's delta); error is
{"type": "error", "error": {type, message}} (type from the status by default:
429 rate_limit_error, 529 overloaded_error, ...); usage is input_tokens and
output_tokens. Ollama: reply is message.content (one chunk and the last
object when streamed), finish is done_reason, usage prompt_eval_count and
eval_count; error is {"error": message}.
  sse_data        OpenAI: a list of values, each sent as a server-sent event's
                  data as it is, then "data: [DONE]" (a recorded stream)
  drip_ms         send the body one byte at a time, this far apart
  reset_after     send this many body bytes, then reset the connection
  stall           true: read the request and never answer
  header_bytes    add a header "x-filler" of this many bytes
  many_headers    add this many headers "x-filler-N: 0123456789"
  same_headers    add this many headers "x-same: N", one name repeated
  close           close the connection after the answer
"""
import http.server
import json
import os
import random
import socket
import struct
import sys
import threading
import time
import urllib.parse

DIR = sys.argv[1]
LOCK = threading.Lock()
STATE = {}  # scenario name -> number of requests seen


STEPS = {}  # scenario name -> (mtime, steps), so a request does not reparse its file


def steps_of(name):
    path = os.path.join(DIR, name + ".json")
    try:
        mtime = os.stat(path).st_mtime_ns
        cached = STEPS.get(name)
        if cached and cached[0] == mtime:
            return cached[1]
        with open(path, "rb") as f:
            script = json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return []
    out = []
    for step in script:
        out.extend([step] * int(step.get("times", 1)))
    STEPS[name] = (mtime, out)
    return out


def random_pieces(text, seed):
    """`text` cut in pieces of 1 to 17 characters, their sizes drawn from Random(seed)."""
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        n = rng.randint(1, 17)
        out.append(text[i:i + n])
        i += n
    return out


def argument_pieces(step, args):
    """A tool call's arguments as streamed: random pieces with a seed, else two fragments."""
    if "seed" in step:
        return random_pieces(args, step["seed"]) or [""]
    return [args[:5], args[5:]]


def openai_tool_calls(step):
    """The step's tool_calls ([{name, arguments (text or a value), id?}]) in OpenAI's shape."""
    out = []
    for i, c in enumerate(step["tool_calls"]):
        args = c.get("arguments", {})
        out.append({"id": c.get("id", "call_%d" % (i + 1)), "type": "function",
                    "function": {"name": c["name"], "arguments": args if isinstance(args, str) else json.dumps(args)}})
    return out


def completion(step, model):
    msg = {"role": "assistant", "content": step.get("reply"), "refusal": step.get("refusal")}
    if "tool_calls" in step:
        msg["tool_calls"] = openai_tool_calls(step)
    body = {
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "message": msg, "logprobs": None,
                     "finish_reason": step.get("finish", "tool_calls" if "tool_calls" in step else "stop")}],
    }
    usage = openai_usage(step)
    if usage is not None:
        body["usage"] = usage
    return body


def openai_usage(step):
    if "usage_raw" in step:
        return step["usage_raw"]
    usage = step.get("usage", [11, 7])
    if usage is None:
        return None
    return {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": usage[0] + usage[1]}


def sse(step, model):
    events = []
    base = {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 1700000000, "model": model}
    first = dict(base, choices=[{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
    events.append(first)
    for piece in step["stream"]:
        events.append(dict(base, choices=[{"index": 0, "delta": {"content": piece}, "finish_reason": None}]))
    if "stream_error" in step:
        err = step["stream_error"]
        events.append({"error": {"message": err.get("message", "error"), "type": err.get("type", "server_error")}})
        return [("data: " + json.dumps(e) + "\n\n").encode() for e in events]
    for i, c in enumerate(openai_tool_calls(step) if "tool_calls" in step else []):
        pieces = argument_pieces(step, c["function"]["arguments"])  # as providers do: in fragments
        head = {"index": i, "id": c["id"], "type": "function", "function": {"name": c["function"]["name"], "arguments": pieces[0]}}
        events.append(dict(base, choices=[{"index": 0, "delta": {"tool_calls": [head]}, "finish_reason": None}]))
        for piece in pieces[1:]:
            tail = {"index": i, "function": {"arguments": piece}}
            events.append(dict(base, choices=[{"index": 0, "delta": {"tool_calls": [tail]}, "finish_reason": None}]))
    events.append(dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": step.get("finish", "stop")}]))
    usage = openai_usage(step)
    if usage is not None:
        events.append(dict(base, choices=[], usage=usage))
    chunks = [("data: " + json.dumps(e) + "\n\n").encode() for e in events]
    chunks.append(b"data: [DONE]\n\n")
    return chunks


def api_of(path):
    if path.endswith("/v1/messages"):
        return "anthropic"
    if ":generateContent" in path or ":streamGenerateContent" in path:
        return "gemini"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/api/chat"):
        return "ollama"
    return "openai"


def usage_of(step):
    usage = step.get("usage", [11, 7])
    return (usage[0], usage[1]) if usage is not None else None


ANTHROPIC_ERRORS = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                    404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
                    500: "api_error", 529: "overloaded_error"}
ANTHROPIC_STOP = {"stop": "end_turn", "length": "max_tokens"}


def anthropic_error(err, status):
    return {"type": "error", "error": {"type": err.get("type") or ANTHROPIC_ERRORS.get(status, "api_error"),
                                       "message": err.get("message", "error")}}


def anthropic_tool_uses(step, raw=False):
    """The step's tool_calls ([{name, arguments (text or a value), id?}]) as tool_use blocks; with raw,
    each with the input's text as it is streamed (arguments text that is not JSON: a cut-off input)."""
    out = []
    for i, c in enumerate(step.get("tool_calls", [])):
        args = c.get("arguments", {})
        try:
            value = json.loads(args) if isinstance(args, str) else args
        except ValueError:
            value = {}
        block = {"type": "tool_use", "id": c.get("id", "toolu_%d" % (i + 1)), "name": c["name"], "input": value}
        out.append((block, args if isinstance(args, str) else json.dumps(args)) if raw else block)
    return out


def anthropic_stop(step):
    if "refusal" in step:
        return "refusal"
    finish = step.get("finish", "tool_use" if "tool_calls" in step else "stop")
    return ANTHROPIC_STOP.get(finish, finish)


def anthropic_message(step, model, text):
    if "blocks" in step:
        content = step["blocks"]
    else:
        content = [{"type": "text", "text": text}] if text is not None else []
        content += anthropic_tool_uses(step)
    stop = anthropic_stop(step)
    body = {"id": "msg_mock", "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": stop, "stop_sequence": None}
    if "stop_details" in step:
        body["stop_details"] = step["stop_details"]
    if "usage_raw" in step:
        body["usage"] = step["usage_raw"]
    else:
        usage = usage_of(step)
        if usage is not None:
            body["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]}
    return body


def anthropic_sse(step, model):
    def ev(kind, data):
        data = dict(data, type=kind)
        return ("event: %s\ndata: %s\n\n" % (kind, json.dumps(data))).encode()
    usage = usage_of(step)
    start = anthropic_message(dict(step, usage=None), model, None)
    start.update(content=[], stop_reason=None)
    start.pop("stop_details", None)
    start.pop("usage", None)
    if "usage_raw" in step:
        start["usage"] = dict(step["usage_raw"], output_tokens=1)
        usage = (None, step["usage_raw"].get("output_tokens"))
    elif usage is not None:
        start["usage"] = {"input_tokens": usage[0], "output_tokens": 1}
    chunks = [ev("message_start", {"message": start}),
              ev("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
              ev("ping", {})]
    for piece in step["stream"]:
        chunks.append(ev("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": piece}}))
    if "stream_error" in step:
        err = step["stream_error"]
        chunks.append(ev("error", anthropic_error(err, 529)))
        return chunks
    chunks.append(ev("content_block_stop", {"index": 0}))
    for i, (b, args) in enumerate(anthropic_tool_uses(step, raw=True), 1):
        # in two fragments, as the API sends them
        chunks.append(ev("content_block_start", {"index": i, "content_block": dict(b, input={})}))
        for part in argument_pieces(step, args):
            chunks.append(ev("content_block_delta", {"index": i,
                                                     "delta": {"type": "input_json_delta", "partial_json": part}}))
        chunks.append(ev("content_block_stop", {"index": i}))
    stop = anthropic_stop(step)
    delta = {"delta": {"stop_reason": stop, "stop_sequence": None}}
    if "stop_details" in step:
        delta["delta"]["stop_details"] = step["stop_details"]
    if usage is not None:
        delta["usage"] = {"output_tokens": usage[1]}
    chunks.append(ev("message_delta", delta))
    chunks.append(ev("message_stop", {}))
    return chunks


def ollama_object(step, model, content, done):
    obj = {"model": model, "created_at": "2024-01-01T00:00:00Z",
           "message": {"role": "assistant", "content": content}, "done": done}
    if done:
        obj["done_reason"] = step.get("finish", "stop")
        obj.update(total_duration=1000, load_duration=10, prompt_eval_duration=100, eval_duration=500)
        usage = usage_of(step)
        if "usage_raw" in step:
            obj.update(step["usage_raw"])
        elif usage is not None:
            obj.update(prompt_eval_count=usage[0], eval_count=usage[1])
    return obj


def ollama_lines(step, model, pieces):
    lines = [ollama_object(step, model, p, False) for p in pieces]
    if "stream_error" in step:
        lines.append({"error": step["stream_error"].get("message", "error")})
    else:
        lines.append(ollama_object(step, model, "", True))
    return [(json.dumps(x) + "\n").encode() for x in lines]


GEMINI_STATUS = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED",
                 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}
GEMINI_FINISH = {"stop": "STOP", "length": "MAX_TOKENS"}


def gemini_error(err, status):
    body = {"code": status, "message": err.get("message", "error"),
            "status": err.get("type") or GEMINI_STATUS.get(status, "UNKNOWN")}
    if "retry_delay" in err:
        body["details"] = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": err["retry_delay"]}]
    return {"error": body}


def gemini_usage(step):
    if "usage_raw" in step:
        return step["usage_raw"]
    usage = usage_of(step)
    if usage is None:
        return None
    return {"promptTokenCount": usage[0], "candidatesTokenCount": usage[1], "totalTokenCount": usage[0] + usage[1]}


def gemini_parts(step, text):
    if "parts" in step:
        return step["parts"]
    parts = [{"text": text}] if text else []
    for c in step.get("tool_calls", []):
        args = c.get("arguments", {})
        call = {"name": c["name"], "args": json.loads(args) if isinstance(args, str) else args}
        if "id" in c:
            call["id"] = c["id"]
        parts.append({"functionCall": call})
    return parts


def gemini_candidate(step, parts, final):
    cand = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if final:
        finish = step.get("finish", "SAFETY" if "refusal" in step else "stop")
        cand["finishReason"] = GEMINI_FINISH.get(finish, finish)
        if "finish_message" in step:
            cand["finishMessage"] = step["finish_message"]
        if "blocked_category" in step:
            cand["safetyRatings"] = [{"category": step["blocked_category"], "probability": "HIGH", "blocked": True}]
    return cand


def gemini_response(step, model, parts, final):
    if "blocked" in step:
        b = step["blocked"]
        fb = {"blockReason": b.get("reason", "SAFETY")}
        if "message" in b:
            fb["blockReasonMessage"] = b["message"]
        body = {"promptFeedback": fb}
    else:
        body = {"candidates": [gemini_candidate(step, parts, final)]}
    usage = gemini_usage(step)
    if usage is not None and final:
        body["usageMetadata"] = usage
    body["modelVersion"] = model
    body["responseId"] = "mock-response"
    return body


def gemini_answer(step, model, stream, status):
    if "error" in step:
        err = step["error"]
        status = int(err.get("status", status))
        return status, json.dumps(gemini_error(err, status)).encode(), None, "application/json"
    text = step.get("refusal", step.get("reply"))
    if not stream:
        body = gemini_response(step, model, gemini_parts(step, text), True)
        return status, json.dumps(body).encode(), None, "application/json"
    pieces = step.get("stream", [text] if text else [])
    events = [gemini_response(step, model, [{"text": p}], False) for p in pieces]
    if "stream_error" in step:
        events.append(gemini_error(step["stream_error"], 500))
    else:
        events.append(gemini_response(step, model, gemini_parts(dict(step, reply=None, refusal=None), None), True))
    return status, None, [("data: " + json.dumps(e) + "\r\n\r\n").encode() for e in events], "text/event-stream"


def responses_usage(step):
    if "usage_raw" in step:
        return step["usage_raw"]
    usage = usage_of(step)
    if usage is None:
        return None
    return {"input_tokens": usage[0], "input_tokens_details": {"cached_tokens": 0}, "output_tokens": usage[1],
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": usage[0] + usage[1]}


def responses_items(step, text):
    items = [{"type": "reasoning", "id": "rs_1", "summary": []}] if step.get("reasoning") else []
    if "refusal" in step:
        items.append({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                      "content": [{"type": "refusal", "refusal": step["refusal"]}]})
    elif text is not None:
        items.append({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                      "content": [{"type": "output_text", "text": text, "annotations": []}]})
    for i, c in enumerate(step.get("tool_calls", [])):
        args = c.get("arguments", {})
        items.append({"type": "function_call", "id": "fc_%d" % (i + 1), "call_id": c.get("id", "call_%d" % (i + 1)),
                      "name": c["name"], "arguments": args if isinstance(args, str) else json.dumps(args),
                      "status": "completed"})
    return items


def responses_object(step, model, output, final):
    body = {"id": "resp_mock", "object": "response", "created_at": 1700000000, "model": model,
            "status": "in_progress", "error": None, "incomplete_details": None, "output": output}
    if final:
        finish = step.get("finish", "stop")
        if "failed" in step:
            body["status"] = "failed"
            body["error"] = step["failed"]
        elif finish == "stop":
            body["status"] = "completed"
        else:
            body["status"] = "incomplete"
            body["incomplete_details"] = {"reason": "max_output_tokens" if finish == "length" else finish}
        usage = responses_usage(step)
        if usage is not None:
            body["usage"] = usage
    return body


def responses_events(step, model):
    events, n = [], [0]

    def ev(kind, **data):
        data = dict(data, type=kind, sequence_number=n[0])
        n[0] += 1
        events.append(("event: %s\ndata: %s\n\n" % (kind, json.dumps(data))).encode())
    ev("response.created", response=responses_object(step, model, [], False))
    ev("response.in_progress", response=responses_object(step, model, [], False))
    pieces = step.get("stream", [])
    items = responses_items(step, "".join(pieces) if pieces else None)
    for i, item in enumerate(items):
        if item["type"] == "message":
            ev("response.output_item.added", output_index=i, item=dict(item, status="in_progress", content=[]))
            part = item["content"][0]
            ev("response.content_part.added", item_id=item["id"], output_index=i, content_index=0,
               part=dict(part, **({"text": ""} if part["type"] == "output_text" else {"refusal": ""})))
            if part["type"] == "refusal":
                ev("response.refusal.delta", item_id=item["id"], output_index=i, content_index=0,
                   delta=part["refusal"])
                ev("response.refusal.done", item_id=item["id"], output_index=i, content_index=0,
                   refusal=part["refusal"])
            else:
                for p in pieces:
                    ev("response.output_text.delta", item_id=item["id"], output_index=i, content_index=0, delta=p)
                if "stream_error" in step:
                    err = step["stream_error"]
                    ev("error", code=err.get("type", "server_error"), message=err.get("message", "error"), param=None)
                    return events
                ev("response.output_text.done", item_id=item["id"], output_index=i, content_index=0,
                   text=part["text"])
            ev("response.content_part.done", item_id=item["id"], output_index=i, content_index=0, part=part)
        elif item["type"] == "function_call":
            ev("response.output_item.added", output_index=i, item=dict(item, arguments="", status="in_progress"))
            args = item["arguments"]
            for frag in (args[:5], args[5:]):
                ev("response.function_call_arguments.delta", item_id=item["id"], output_index=i, delta=frag)
            ev("response.function_call_arguments.done", item_id=item["id"], output_index=i, arguments=args)
        else:
            ev("response.output_item.added", output_index=i, item=item)
        ev("response.output_item.done", output_index=i, item=item)
    final = responses_object(step, model, items, True)
    ev({"completed": "response.completed", "incomplete": "response.incomplete",
        "failed": "response.failed"}[final["status"]], response=final)
    return events


def responses_answer(step, model, status):
    if "stream" in step:
        return status, None, responses_events(step, model), "text/event-stream"
    text = step.get("reply")
    body = responses_object(step, model, responses_items(step, text), True)
    return status, json.dumps(body).encode(), None, "application/json"


def provider_answer(api, step, model, doc, status, path=""):
    """The answer in Anthropic's or Ollama's format: (status, data, chunks,
    content type), or None when the step is not a reply, refusal, error or
    stream (or the format is OpenAI's)."""
    if api == "openai":
        return None
    if api == "responses":
        if "error" in step or not any(k in step for k in ("reply", "refusal", "tool_calls", "stream", "failed")):
            return None  # OpenAI's error bodies, and the generic steps
        return responses_answer(step, model, status)
    if api == "gemini":
        if not any(k in step for k in ("reply", "refusal", "parts", "tool_calls", "error", "stream", "blocked")):
            return None
        return gemini_answer(step, path.rsplit("/models/", 1)[-1].split(":")[0], ":streamGenerateContent" in path,
                             status)
    if "error" in step:
        err = step["error"]
        status = int(err.get("status", status))
        payload = anthropic_error(err, status) if api == "anthropic" else {"error": err.get("message", "error")}
        return status, json.dumps(payload).encode(), None, "application/json"
    if "stream" in step:
        if api == "anthropic":
            return status, None, anthropic_sse(step, model), "text/event-stream"
        return status, None, ollama_lines(step, model, step["stream"]), "application/x-ndjson"
    if not any(k in step for k in ("reply", "refusal", "blocks", "tool_calls")):
        return None
    text = step.get("refusal", step.get("reply"))
    if api == "anthropic":
        return status, json.dumps(anthropic_message(step, model, text)).encode(), None, "application/json"
    text = text or ""
    if isinstance(doc, dict) and doc.get("stream") is False:
        return status, json.dumps(ollama_object(step, model, text, True)).encode(), None, "application/json"
    return status, None, ollama_lines(step, model, [text]), "application/x-ndjson"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        # Small writes go out at once: without this, Nagle's algorithm and the
        # client's delayed ACK add up to 40 ms to a response sent in parts.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self):
        self.answer()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_GET

    def answer(self):
        n = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(n) if n else b""
        target = self.path
        path = urllib.parse.urlsplit(target).path if "://" in target else target.split("?")[0]
        parts = path.split("/")
        name = parts[2] if len(parts) > 2 and parts[1] == "s" else "default"
        entry = {
            "method": self.command, "target": target, "path": path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body.decode("utf-8", "replace"), "t": time.time() * 1000,
        }
        with LOCK:
            with open(os.path.join(DIR, name + ".log"), "a") as f:
                f.write(json.dumps(entry) + "\n")
            i = STATE.get(name, 0)
            STATE[name] = i + 1
        steps = steps_of(name)
        if i >= len(steps):
            step = {"status": 418, "json": {"error": {"message": "mock: no step left in scenario %s" % name}}}
        else:
            step = steps[i]
        try:
            doc = json.loads(body)
            model = doc.get("model", "mock")
        except (ValueError, AttributeError):
            doc, model = {}, "mock"
        if "by_turn" in step:
            turns = step["by_turn"]
            msgs = doc.get("messages") if isinstance(doc, dict) else None
            k = sum(1 for m in msgs if isinstance(m, dict) and m.get("role") == "assistant") if isinstance(msgs, list) else 0
            step = dict(step, reply=turns[min(k, len(turns) - 1)])
        if "stream_text" in step:
            step = dict(step, stream=random_pieces(step["stream_text"], step.get("seed", 1)))
        self.play(step, model, api_of(path), doc, path)

    def play(self, step, model, api="openai", doc=None, path=""):
        if step.get("delay_ms"):
            time.sleep(step["delay_ms"] / 1000)
        if step.get("stall"):
            return self.stall()
        status = int(step.get("status", 200))
        headers = dict(step.get("headers", {}))
        chunks = None
        special = provider_answer(api, step, model, doc, status, path)
        if special is not None:
            status, data, chunks = special[0], special[1], special[2]
            headers.setdefault("content-type", special[3])
        elif "stream" in step:
            chunks = sse(step, model)
            headers.setdefault("content-type", "text/event-stream")
        elif "sse_data" in step:
            chunks = [("data: " + json.dumps(e) + "\n\n").encode() for e in step["sse_data"]]
            chunks.append(b"data: [DONE]\n\n")
            headers.setdefault("content-type", "text/event-stream")
        elif "error" in step:
            err = step["error"]
            status = int(err.get("status", status))
            payload = {"error": {"message": err.get("message", "error"), "type": err.get("type", "server_error"),
                                 "param": None, "code": err.get("code")}}
            data = json.dumps(payload).encode()
        elif "reply" in step or "refusal" in step or "tool_calls" in step:
            data = json.dumps(completion(step, model)).encode()
        elif "json" in step:
            data = json.dumps(step["json"]).encode()
        elif "body_hex" in step:
            data = bytes.fromhex(step["body_hex"])
        else:
            data = step.get("body", "").encode()
        if chunks is None:
            headers.setdefault("content-type", "application/json")
        if step.get("header_bytes"):
            headers["x-filler"] = "x" * int(step["header_bytes"])
        lines = ["HTTP/1.1 %d %s" % (status, self.responses.get(status, ("Status",))[0])]
        for k, v in headers.items():
            lines.append("%s: %s" % (k, v))
        for k in range(int(step.get("many_headers", 0))):
            lines.append("x-filler-%d: 0123456789" % k)
        for k in range(int(step.get("same_headers", 0))):
            lines.append("x-same: %d" % k)
        if chunks is not None:
            lines.append("connection: close")
            self.close_connection = True
        else:
            lines.append("content-length: %d" % len(data))
            if step.get("close"):
                lines.append("connection: close")
                self.close_connection = True
        head = ("\r\n".join(lines) + "\r\n\r\n").encode()
        try:
            self.wfile.write(head)
            self.wfile.flush()
            if chunks is not None:
                group = 64 if "stream_text" in step and not step.get("chunk_delay_ms") else 1
                for k in range(0, len(chunks), group):
                    if step.get("reset_after_events") is not None and k >= int(step["reset_after_events"]):
                        self.reset()
                        return
                    self.wfile.write(b"".join(chunks[k:k + group]))
                    self.wfile.flush()
                    if step.get("chunk_delay_ms"):
                        time.sleep(step["chunk_delay_ms"] / 1000)
            elif step.get("reset_after") is not None:
                self.wfile.write(data[: int(step["reset_after"])])
                self.wfile.flush()
                self.reset()
            elif step.get("drip_ms"):
                for b in data:
                    self.wfile.write(bytes([b]))
                    self.wfile.flush()
                    time.sleep(step["drip_ms"] / 1000)
            else:
                self.wfile.write(data)
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True

    def reset(self):
        """Drops the connection with a reset: the client sees an error, not an end."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def stall(self):
        """Never answers; returns when the client goes away (or after 120 s)."""
        self.close_connection = True
        conn = self.connection
        conn.settimeout(0.05)
        end = time.time() + 120
        while time.time() < end:
            try:
                if conn.recv(1, socket.MSG_PEEK) == b"":
                    return
            except socket.timeout:
                continue
            except OSError:
                return
            time.sleep(0.05)


class Server(http.server.HTTPServer):
    allow_reuse_address = True
    request_queue_size = 512


WORKERS = 256


def worker(server):
    """Accepts connections and serves each until it closes. Threads waiting in
    accept() cost nothing, and unlike a thread per connection (ThreadingMixIn)
    a burst of 50 connections does not queue behind 50 thread starts."""
    while True:
        try:
            conn, addr = server.socket.accept()
        except OSError:
            continue
        try:
            server.finish_request(conn, addr)
        except Exception:
            pass
        finally:
            server.shutdown_request(conn)


def watch_parent(ppid):
    while os.getppid() == ppid:
        time.sleep(0.5)
    os._exit(0)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    sys.stdout.write("%d %d\n" % (server.server_address[1], os.getpid()))
    sys.stdout.flush()
    for _ in range(WORKERS):
        threading.Thread(target=worker, args=(server,), daemon=True).start()
    threading.Event().wait()


if __name__ == "__main__":
    main()

"""Network text backends against loopback servers speaking the OpenAI and Gemini protocols.

All traffic stays on 127.0.0.1; backoff sleeps go to an injected recorder, so nothing waits
except the deliberate client timeouts (0.5 s) and the concurrency test's held replies (0.15 s).
"""

from __future__ import annotations

import base64
import logging
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from mnemoforge.backends.text import (
    ChatMessage,
    ChatRequest,
    ImagePart,
    RateLimiter,
    Retrier,
    RetryPolicy,
    TextBackend,
    make_text_backend,
    request,
    user,
)
from mnemoforge.backends.text.gemini import GeminiBackend
from mnemoforge.backends.text.openai_compat import OpenAICompatBackend
from mnemoforge.backends.text.retry import Outcome, parse_retry_after
from tests.llm_servers import LLMServer, Reply, error_body, gemini_response, openai_completion

KEY = "sk-test-SECRET-5f2c9a77e1"
PROVIDERS = ["openai", "gemini"]
SDK = {"openai": "openai", "gemini": "google.genai"}


def need_sdk(provider: str) -> None:
    """Skip when the provider's SDK is missing (both are opt-in: ``pip install openai google-genai``)."""
    pytest.importorskip(SDK[provider], reason=f"the {provider} backend needs the {SDK[provider]} package")


@pytest.fixture(autouse=True)
def _no_env_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(name, raising=False)


@dataclass
class Env:
    provider: str
    server: LLMServer
    sleeps: list[float] = field(default_factory=list)

    def backend(self, **kw: Any) -> TextBackend:
        kw.setdefault("timeout", 5.0)
        kw.setdefault("sleep", self.sleeps.append)
        if self.provider == "openai":
            return OpenAICompatBackend("stub-model", base_url=self.server.base_url, api_key=KEY, **kw)
        return GeminiBackend("gemini-stub", api_key=KEY, base_url=self.server.base_url, **kw)

    def bodies(self) -> list[Any]:
        return [r.json for r in self.server.requests]


@pytest.fixture(params=PROVIDERS)
def env(request: pytest.FixtureRequest) -> Iterator[Env]:
    need_sdk(request.param)
    with LLMServer(request.param) as srv:
        yield Env(request.param, srv)


def ok_reply(env: Env, text: str) -> Reply:
    return Reply(200, openai_completion(text) if env.provider == "openai" else gemini_response(text))


def test_normal_reply(env: Env) -> None:
    backend = env.backend()
    assert isinstance(backend, TextBackend)
    res = backend.chat(request("Say ok.", max_tokens=8))
    assert res.ok and res.text == "ok" and res.error is None and res.attempts == 1
    assert res.usage == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    assert isinstance(res.raw, dict) and res.status == 200
    assert backend.id.startswith(f"{env.provider}:") and env.server.url in backend.id
    [req] = env.server.requests
    if env.provider == "openai":
        assert req.path == "/v1/chat/completions"
        assert req.json["model"] == "stub-model" and req.json["max_tokens"] == 8
        assert req.json["messages"] == [{"role": "user", "content": "Say ok."}]
    else:
        assert req.path == "/v1beta/models/gemini-stub:generateContent"
        assert req.json["contents"] == [{"role": "user", "parts": [{"text": "Say ok."}]}]
        assert req.json["generationConfig"]["maxOutputTokens"] == 8


def test_image_part_and_roles_in_protocol_shape(env: Env, tmp_path: Path) -> None:
    png = tmp_path / "red.png"
    Image.new("RGB", (4, 3), (255, 0, 0)).save(png)
    b64 = base64.b64encode(png.read_bytes()).decode()
    msgs = (
        ChatMessage("system", "Be brief."),
        ChatMessage("user", ["What colour is this?", ImagePart(png)]),  # a list of parts is accepted
        ChatMessage("assistant", "Red."),
        user("Sure?"),
    )
    res = env.backend().chat(ChatRequest(msgs, temperature=0.0, max_tokens=16, seed=7))
    assert res.ok
    body = env.bodies()[0]
    if env.provider == "openai":
        assert body["messages"] == [
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What colour is this?"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64}"}},
                ],
            },
            {"role": "assistant", "content": "Red."},
            {"role": "user", "content": "Sure?"},
        ]
        assert body["seed"] == 7 and body["temperature"] == 0
    else:
        assert body["systemInstruction"]["parts"] == [{"text": "Be brief."}]
        assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
        text, image = body["contents"][0]["parts"]
        assert text == {"text": "What colour is this?"}
        inline = image.get("inlineData") or image.get("inline_data")  # proto JSON accepts either spelling
        assert inline["data"] == b64
        assert (inline.get("mimeType") or inline.get("mime_type")) == "image/png"
        assert body["generationConfig"] == {"temperature": 0.0, "maxOutputTokens": 16, "seed": 7}
        assert "tools" not in body


def test_429_honours_retry_after(env: Env) -> None:
    env.server.script(Reply(429, error_body(env.provider, 429, "slow down"), {"Retry-After": "3"}))  # type: ignore[arg-type]
    res = env.backend().chat(request("hi"))
    assert res.ok and res.text == "ok" and res.attempts == 2
    assert env.sleeps == [3.0]
    assert len(env.server.requests) == 2


def test_500_then_success_with_deterministic_jitter(env: Env) -> None:
    for _ in range(2):
        env.server.script(Reply(500, "upstream exploded"))
        res = env.backend(seed=11).chat(request("hi"))
        assert res.ok and res.attempts == 2
    assert len(env.sleeps) == 2 and env.sleeps[0] == env.sleeps[1]  # same seed + request: same jitter
    assert 1.0 <= env.sleeps[0] <= 1.25
    env.server.script(Reply(503, "again"))
    env.backend(seed=12).chat(request("hi"))
    assert env.sleeps[2] != env.sleeps[0]


@pytest.mark.parametrize("case", ["not-json", "json-array", "no-choices", "empty-content"])
def test_malformed_reply_is_marked_not_raised(env: Env, case: str) -> None:
    empty = {"openai": {"choices": []}, "gemini": {"candidates": []}}[env.provider]
    blank = {
        "openai": {"choices": [{"message": {"role": "assistant", "content": ""}, "finish_reason": "length"}]},
        "gemini": {"candidates": [{"content": {"parts": [{"text": ""}]}, "finishReason": "MAX_TOKENS"}]},
    }[env.provider]
    bodies = {"not-json": "not json{", "json-array": "[1, 2]", "no-choices": empty, "empty-content": blank}
    body = bodies[case]
    env.server.script(Reply(200, body))
    res = env.backend().chat(request("hi"))
    assert res is not None and not res.ok and res.text == "" and res.attempts == 1
    assert res.error
    if isinstance(body, str):
        assert res.raw == body and "JSON" in res.error
    else:
        assert res.raw == body
        assert ("no c" in res.error) if case == "no-choices" else ("empty content" in res.error)
    assert env.sleeps == []


def test_timeout_then_success(env: Env) -> None:
    env.server.script(Reply(200, {}, delay=5.0))  # the server wakes early when the test ends
    res = env.backend(timeout=0.5).chat(request("hi"))
    assert res.ok and res.attempts == 2 and len(env.sleeps) == 1
    assert len(env.server.requests) == 2


def test_400_is_not_retried(env: Env) -> None:
    env.server.script(Reply(400, error_body(env.provider, 400, "bad field"), {"Retry-After": "1"}))  # type: ignore[arg-type]
    res = env.backend().chat(request("hi"))
    assert not res.ok and res.attempts == 1 and res.status == 400
    assert "bad field" in (res.error or "") and isinstance(res.raw, dict)
    assert len(env.server.requests) == 1 and env.sleeps == []


def test_gives_up_after_max_retries(env: Env) -> None:
    env.server.script(*[Reply(503, "busy") for _ in range(5)])
    res = env.backend(max_retries=2).chat(request("hi"))
    assert not res.ok and res.attempts == 3 and len(env.sleeps) == 2
    assert "gave up after 3 attempts" in (res.error or "")


def test_api_key_only_in_auth_header(env: Env, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    leak = f"Incorrect API key provided: {KEY}"
    env.server.script(
        Reply(401, error_body(env.provider, 401, leak)),  # type: ignore[arg-type]
        Reply(500, {"error": {"message": leak}}),
        Reply(200, f"garbage {KEY}"),
    )
    backend = env.backend(max_retries=1)
    results = [backend.chat(request("hi")) for _ in range(3)]
    assert [r.ok for r in results] == [False, False, True]
    for r in results:
        assert KEY not in repr(r)
    assert "***" in (results[0].error or "") and "***" in str(results[0].raw)
    assert results[1].raw == "garbage ***" and results[1].attempts == 2
    assert KEY not in backend.id and KEY not in repr(backend)
    assert KEY not in caplog.text
    for req in env.server.requests:
        auth = {"openai": "authorization", "gemini": "x-goog-api-key"}[env.provider]
        carrying = {k.lower() for k, v in req.headers.items() if KEY in v}
        assert carrying == {auth}
        if env.provider == "openai":
            assert req.headers.get(auth, req.headers.get("Authorization")) == f"Bearer {KEY}"
        assert KEY not in req.path and KEY not in str(req.query) and KEY.encode() not in req.body


def test_concurrency_limit_holds(env: Env) -> None:
    env.server.default_delay = 0.15
    backend = env.backend(max_concurrency=2)
    results: list[Any] = []
    lock = threading.Lock()

    def work(i: int) -> None:
        r = backend.chat(request(f"q{i}"))
        with lock:
            results.append(r)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert len(results) == 8 and all(r.ok for r in results)
    assert len(env.server.requests) == 8
    assert env.server.max_in_flight == 2


def test_connection_refused_is_retried_then_reported(env: Env) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}" + ("/v1" if env.provider == "openai" else "")
    env.server.base_url = url
    res = env.backend(max_retries=2).chat(request("hi"))
    assert not res.ok and res.attempts == 3 and len(env.sleeps) == 2
    assert "connect" in (res.error or "").lower() and KEY not in (res.error or "")


def test_unreadable_image_fails_without_sending(env: Env, tmp_path: Path) -> None:
    bogus = tmp_path / "not.png"
    bogus.write_text("hello")
    for part in (ImagePart(bogus), ImagePart(tmp_path / "missing.png")):
        res = env.backend().chat(request([user("look", part)]))
        assert not res.ok and res.attempts == 0 and res.error
    assert env.server.requests == []


# --- retry machinery without a server -------------------------------------------------------------


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"Retry-After": "2.5"}) == 2.5
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:10 GMT"}, now=1445412480.0) == 10.0
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None


def test_retrier_bounds_total_time_and_retry_after() -> None:
    now = [0.0]
    sleeps: list[float] = []

    def sleep(s: float) -> None:
        sleeps.append(s)
        now[0] += s

    policy = RetryPolicy(max_attempts=10, base_delay=4.0, jitter=0.0, max_total_s=10.0)
    r = Retrier(policy, sleep=sleep, clock=lambda: now[0])
    out, n = r.run(lambda: Outcome(False, error="HTTP 503", retryable=True), "k")
    assert n == 2 and sleeps == [4.0] and "budget" in (out.error or "")
    policy2 = RetryPolicy(max_attempts=5, max_retry_after=30.0)
    out, n = Retrier(policy2, sleep=sleep).run(lambda: Outcome(False, retryable=True, retry_after=60.0), "k")
    assert n == 1 and "exceeds" in (out.error or "")


def test_rate_limiter_spaces_requests() -> None:
    now = [100.0]
    waits: list[float] = []

    def sleep(s: float) -> None:
        waits.append(s)
        now[0] += s

    lim = RateLimiter(4.0, clock=lambda: now[0], sleep=sleep)
    for _ in range(5):
        lim.acquire()
    assert waits == [0.25, 0.25, 0.25, 0.25]


def test_registry_builds_both_and_rejects_bad_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    need_sdk("openai")
    need_sdk("gemini")
    monkeypatch.setenv("MY_GEMINI_KEY", KEY)
    b = make_text_backend({"provider": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"})
    assert b.id == "openai:m@http://127.0.0.1:9/v1"
    g = make_text_backend(
        {"provider": "gemini", "model": "g", "api_key_env": "MY_GEMINI_KEY", "retry": {"max_attempts": 2}}
    )
    assert isinstance(g, GeminiBackend) and KEY not in g.id and g.retrier.policy.max_attempts == 2
    with pytest.raises(ValueError, match="unknown text provider"):
        make_text_backend({"provider": "nope", "model": "m"})
    with pytest.raises(ValueError, match="unknown settings"):
        make_text_backend({"provider": "openai", "model": "m", "base_url": "http://127.0.0.1:9", "tempo": 1})
    with pytest.raises(ValueError, match="no OpenAI API key"):
        make_text_backend({"provider": "openai", "model": "m"})
    with pytest.raises(ValueError, match="no Gemini API key"):
        make_text_backend({"provider": "gemini", "model": "g"})


def test_id_strips_credentials_from_url() -> None:
    need_sdk("openai")
    b = OpenAICompatBackend("m", base_url=f"http://user:{KEY}@127.0.0.1:9/v1?key={KEY}", api_key=KEY)
    assert KEY not in b.id and b.id == "openai:m@http://127.0.0.1:9/v1"

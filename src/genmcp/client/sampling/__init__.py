"""Sampling adapters: a server's ``sampling/createMessage`` answered by a model API over HTTP.

    from genmcp.client.sampling.openai import OpenAISampling

    sampling = OpenAISampling("https://api.openai.com/v1", api_key=key, model="gpt-4o-mini")
    async with Client(url, sampling=sampling, capabilities=sampling.capabilities) as client:
        ...

* ``adapter``: ``SamplingAdapter``, what both share (the model chosen from the request's
  ``modelPreferences``, the HTTP client, errors as ``RPCError``);
* ``openai``: ``OpenAISampling``, an OpenAI-compatible ``/chat/completions`` API;
* ``anthropic``: ``AnthropicSampling``, Anthropic's ``/v1/messages`` API.

Optional: imported only by whoever uses them (not by ``genmcp.client``); they speak the wire
formats with httpx (a dependency of genmcp already), not the vendors' SDKs.
"""

from __future__ import annotations

__all__: list[str] = []

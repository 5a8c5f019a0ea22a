"""Drives the proxy with the official Python openai package; prints what it saw as JSON."""
import json
import sys

from openai import OpenAI


def main() -> None:
    base_url = sys.argv[1]
    client = OpenAI(base_url=base_url, api_key="sk-python-client", max_retries=0)
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Hello from Python"}],
    )
    chunks = []
    stream = client.chat.completions.create(
        model="gpt-4o-mini",
        stream=True,
        stream_options={"include_usage": True},
        messages=[
            {"role": "user", "content": "Hello from Python"},
            {"role": "assistant", "content": completion.choices[0].message.content},
            {"role": "user", "content": "Stream this time"},
        ],
    )
    usage = None
    for chunk in stream:
        if chunk.choices:
            chunks.append(chunk.choices[0].delta.content or "")
        if chunk.usage:
            usage = chunk.usage.total_tokens
    print(
        json.dumps(
            {
                "non_stream": completion.choices[0].message.content,
                "stream": "".join(chunks),
                "stream_chunks": len(chunks),
                "usage": usage,
            }
        )
    )


if __name__ == "__main__":
    main()

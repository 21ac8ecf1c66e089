"""A ten-line Framedesk agent: submit a PNG, wait until a reviewer can see it, print the result.

    PYTHONPATH=clients/python/src FRAMEDESK_API_KEY=fd_live_… \\
        python3 clients/python/examples/agent.py frame.png --agent my-bot --channel news
"""

import argparse
import datetime
import os

import framedesk

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("image", help="a PNG file")
parser.add_argument("--agent", required=True, help="the API key's agent slug")
parser.add_argument("--channel", required=True, help="a channel the agent may submit to")
parser.add_argument("--title", default=None)
parser.add_argument("--base-url", default=os.environ.get("FRAMEDESK_BASE_URL", "http://127.0.0.1:3000"))
args = parser.parse_args()

client = framedesk.Client(args.base_url, os.environ["FRAMEDESK_API_KEY"])
today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")
try:
    created = client.submit_frame(args.image, agent_slug=args.agent, channel_slug=args.channel, date=today, title=args.title)
    print(f"submitted {created['id']} ({created['status']})")
    done = client.wait(created["id"], timeout=120)
    print(f"{done['id']} is {done['status']}")
    for name, url in sorted(done["variants"].items()):
        print(f"  {name}: {url}")
except framedesk.ProblemError as problem:
    raise SystemExit(f"refused: {problem}") from None

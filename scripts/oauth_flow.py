#!/usr/bin/env python3
"""Drives Marquee's OAuth 2.1 authorization server end to end and prints one JSON document for
scripts/e2e.sh to check.

  oauth_flow.py --base http://127.0.0.1:PORT --password OWNER_PASSWORD --person NAME --grant NAME

1. The official Python SDK's OAuth client (mcp.client.auth.OAuthClientProvider) connects to
   BASE/mcp with no credential: 401, protected-resource and authorization-server discovery,
   dynamic registration, authorization code with S256 PKCE. Its "browser" signs in to the
   owner pages with the owner's password and allows the request on the consent page as
   PERSON with GRANT. Then MCP calls (tools/list, whoami) run with the token.
2. A scripted authorization-code + PKCE exchange (the same owner pages, plain HTTP) then
   checks: a token for the REST mirror is refused at /mcp (audience), a token revoked at
   /revoke is refused, an expired one is refused (the server runs with short access tokens),
   plain PKCE is refused at /authorize, and a refresh rotates while a reused refresh token
   revokes the connection.
"""
import argparse, asyncio, base64, hashlib, html.parser, json, os, secrets, sys, time
from urllib.parse import parse_qs, urlencode, urlparse


def _kit_home():
    if os.environ.get("MCP_CLIENTS_HOME"):
        return os.environ["MCP_CLIENTS_HOME"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # Beside the project, or beside the shared folder of a worktree one level further down.
    for up in ("..", os.path.join("..", "..")):
        beside = os.path.join(root, up, "shared-cache", "mcp-clients")
        if os.path.isdir(beside):
            return beside
    return os.path.expanduser("~/.cache/mcp-clients")


KIT_VENV = os.path.join(_kit_home(), "venv", "bin", "python")
try:
    import httpx2
    from mcp import Client
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
except ImportError:
    if os.path.exists(KIT_VENV) and os.path.realpath(sys.executable) != os.path.realpath(KIT_VENV):
        os.execv(KIT_VENV, [KIT_VENV, os.path.abspath(__file__), *sys.argv[1:]])
    sys.exit("oauth_flow: the SDK is not installed; run ../shared/mcp-clients/install.sh")

REDIRECT = "http://127.0.0.1:53682/callback"  # never listened on: the "browser" stops at the redirect


class Form(html.parser.HTMLParser):
    """The consent form's hidden fields."""

    def __init__(self):
        super().__init__()
        self.fields = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "input" and a.get("type") == "hidden":
            self.fields[a["name"]] = a.get("value", "")


class Owner:
    """The owner in a browser: signed in to the owner pages, answering consent pages."""

    def __init__(self, base, password, person, grant):
        self.base, self.password, self.person, self.grant = base, password, person, grant
        self.http = httpx2.AsyncClient(follow_redirects=False, timeout=30)
        self.pages_seen = 0

    async def sign_in(self):
        r = await self.http.post(f"{self.base}/sign-in", data={"name": "owner", "password": self.password, "next": "/changes"})
        assert r.status_code == 303, f"sign-in: {r.status_code}"

    async def answer(self, authorize_url, decision="allow"):
        """Opens the authorization URL and answers its consent page; returns the redirect's query."""
        r = await self.http.get(authorize_url)
        if r.status_code == 303 and not r.headers["location"].startswith(REDIRECT):
            raise RuntimeError(f"unexpected redirect {r.headers['location']}")
        if r.status_code == 303:
            return parse_qs(urlparse(r.headers["location"]).query)
        assert r.status_code == 200, f"consent page: {r.status_code} {r.text[:200]}"
        self.pages_seen += 1
        form = Form()
        form.feed(r.text)
        data = dict(form.fields, person=self.person, grant=self.grant, decision=decision)
        r = await self.http.post(f"{self.base}/authorize", data=data)
        assert r.status_code == 303, f"consent answer: {r.status_code} {r.text[:200]}"
        location = r.headers["location"]
        assert location.startswith(REDIRECT), location
        return parse_qs(urlparse(location).query)


class Memory:
    """TokenStorage kept in memory."""

    def __init__(self):
        self.tokens = self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, info):
        self.client = info


async def sdk_flow(a, owner, out):
    answered = {}

    async def redirect_handler(url):
        answered["query"] = await owner.answer(url)

    async def callback_handler():
        q = answered["query"]
        return AuthorizationCodeResult(code=q["code"][0], state=q.get("state", [None])[0], iss=q.get("iss", [None])[0])

    storage = Memory()
    provider = OAuthClientProvider(
        server_url=f"{a.base}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="Python SDK e2e", redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage, redirect_handler=redirect_handler, callback_handler=callback_handler,
    )
    http = httpx2.AsyncClient(auth=provider, timeout=30)
    async with Client(streamable_http_client(f"{a.base}/mcp", http_client=http), mode="legacy") as c:
        tools = (await c.list_tools()).tools
        me = await c.call_tool("whoami", {})
        out["sdk_tools"] = len(tools)
        out["sdk_person"] = me.structured_content["data"]["person"]["name"]
        out["sdk_grant"] = me.structured_content["data"]["grant"]["name"]
    out["sdk_consent_pages"] = owner.pages_seen
    out["sdk_token_prefix"] = storage.tokens.access_token[:4]
    out["sdk_has_refresh"] = bool(storage.tokens.refresh_token)


async def scripted(a, owner, out):
    http = owner.http
    r = await http.post(f"{a.base}/register", json={"client_name": "scripted", "redirect_uris": [REDIRECT], "grant_types": ["authorization_code", "refresh_token"]})
    client_id = r.json()["client_id"]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()

    def authorize_url(resource, method="S256"):
        return f"{a.base}/authorize?" + urlencode({
            "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "xyz",
            "code_challenge": challenge, "code_challenge_method": method, "resource": resource})

    async def tokens(resource):
        q = await owner.answer(authorize_url(resource))
        assert q["state"] == ["xyz"], q
        r = await http.post(f"{a.base}/token", data={"grant_type": "authorization_code", "code": q["code"][0], "redirect_uri": REDIRECT,
                                                    "client_id": client_id, "code_verifier": verifier, "resource": resource})
        assert r.status_code == 200, r.text
        return r.json()

    async def mcp_status(access):
        r = await http.post(f"{a.base}/mcp", headers={"Authorization": f"Bearer {access}", "Content-Type": "application/json"},
                            json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        return r.status_code

    mcp = await tokens(f"{a.base}/mcp")
    out["scripted_mcp"] = await mcp_status(mcp["access_token"])
    rest = await tokens(f"{a.base}/api/v1")
    out["wrong_audience"] = await mcp_status(rest["access_token"])
    r = await http.get(f"{a.base}/api/v1/tools", headers={"Authorization": f"Bearer {rest['access_token']}"})
    out["rest_audience_at_rest"] = r.status_code
    q = await owner.answer(authorize_url(f"{a.base}/mcp", method="plain"))
    out["plain_pkce"] = q.get("error", [""])[0]

    r = await http.post(f"{a.base}/token", data={"grant_type": "refresh_token", "refresh_token": mcp["refresh_token"], "client_id": client_id})
    rotated = r.json()
    out["refresh"] = r.status_code
    out["refresh_rotates"] = rotated.get("refresh_token") not in (None, mcp["refresh_token"])
    out["refreshed_token_works"] = await mcp_status(rotated["access_token"])
    r = await http.post(f"{a.base}/token", data={"grant_type": "refresh_token", "refresh_token": mcp["refresh_token"], "client_id": client_id})
    out["refresh_reuse"] = r.json().get("error")
    out["after_reuse"] = await mcp_status(rotated["access_token"])

    fresh = await tokens(f"{a.base}/mcp")
    out["before_revoke"] = await mcp_status(fresh["access_token"])
    await http.post(f"{a.base}/revoke", data={"token": fresh["access_token"], "client_id": client_id})
    out["revoked"] = await mcp_status(fresh["access_token"])

    expiring = await tokens(f"{a.base}/mcp")
    out["expires_in"] = expiring["expires_in"]
    await asyncio.sleep(expiring["expires_in"] + 0.5)  # the server runs with a 2-second access token
    out["expired"] = await mcp_status(expiring["access_token"])


async def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True)
    ap.add_argument("--password", required=True)
    ap.add_argument("--person", default="owner")
    ap.add_argument("--grant", default="owner")
    a = ap.parse_args()
    owner = Owner(a.base, a.password, a.person, a.grant)
    await owner.sign_in()
    out = {}
    await sdk_flow(a, owner, out)
    await scripted(a, owner, out)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    asyncio.run(main())

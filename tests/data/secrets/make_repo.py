#!/usr/bin/env python3
"""make_repo.py - writes repo/, a small project tree with the secrets a project
commits by mistake, and repo_manifest.json (outside the tree, so that indexing the tree does not
index the values), the exact values each file holds
(a developer tool: its output is committed, CI does not run it).

Every value is fake: random strings in the providers' formats (seeded), and an
OpenSSH and a PEM private key generated here with ssh-keygen and openssl for
this fixture only (they protect nothing). The manifest lists, per file, each
secret's kind, the rule that must redact it, its exact value as the file holds
it (multi-line keys with their line breaks, or the JSON \\n escapes in
credentials.json) and, for keys, their base64 lines as `fragments`; `keep`
lists text of the same file that must survive redaction.

    python3 tests/data/secrets/make_repo.py     (from the repository root)
"""
import base64
import json
import os
import random
import shutil
import string
import subprocess
import tempfile

R = random.Random(777)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "repo")


def rnd(n, a=ALNUM):
    return "".join(R.choice(a) for _ in range(n))


def fake(n, a=ALNUM):
    b = rnd(n - 4, a)
    k = R.randrange(2, len(b) - 2)
    return b[:k] + "FAKE" + b[k:]


manifest = []


def write(path, text, secrets, keep):
    full = os.path.join(REPO, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
    for s in secrets:
        assert s["value"] in text, (path, s)
        for fr in s.get("fragments", []):
            assert fr in text
    for k in keep:
        assert k in text, (path, k)
    manifest.append({"file": path, "secrets": secrets, "keep": keep})


def sec(kind, rule, value, fragments=None):
    d = {"kind": kind, "rule": rule, "value": value}
    if fragments:
        d["fragments"] = fragments
    return d


if os.path.exists(REPO):
    shutil.rmtree(REPO)
os.makedirs(REPO)

# .env
pg, stripe, jwt_s, gh, openai = "pg-" + rnd(14), "sk_live_" + fake(24), fake(48), "ghp_" + fake(36), \
    "sk-proj-" + fake(40, ALNUM + "-_") + "T3BlbkFJ" + rnd(40, ALNUM + "-_")
sendgrid = "SG." + fake(22) + "." + rnd(43, ALNUM + "-_")
write(".env", f"""# local development settings
APP_ENV=development
DEBUG=true
DATABASE_URL=postgres://app:{pg}@localhost:5432/app
STRIPE_SECRET_KEY={stripe}
JWT_SECRET={jwt_s}
GITHUB_TOKEN={gh}
OPENAI_API_KEY={openai}
SENDGRID_API_KEY={sendgrid}
REDIS_URL=redis://localhost:6379/0
""", [sec("url-password", "url-password", pg), sec("stripe-secret-key", "stripe-secret-key", stripe),
      sec("env-secret", "env-secret", jwt_s), sec("github-pat", "github-pat", gh),
      sec("openai-api-key", "openai-api-key", openai), sec("sendgrid-api-key", "sendgrid-api-key", sendgrid)],
    ["APP_ENV=development", "DEBUG=true", "DATABASE_URL=postgres://app:", "@localhost:5432/app",
     "REDIS_URL=redis://localhost:6379/0", "JWT_SECRET="])

# settings.py (Django)
dj = "django-insecure-" + rnd(40, string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)")
dbpw, mailpw = "Dj4ngo-" + rnd(10), rnd(16)
akid = "AKIA" + "".join(R.choice(string.ascii_uppercase + "234567") for _ in range(9)) + "EXAMPLE"
asec = rnd(40, ALNUM + "/+")
write("settings.py", f"""\"\"\"Django settings for the shop project.\"\"\"
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

# SECURITY WARNING: keep the secret key used in production secret!
SECRET_KEY = '{dj}'

DEBUG = False
ALLOWED_HOSTS = ['shop.example.com']

DATABASES = {{
    'default': {{
        'ENGINE': 'django.db.backends.postgresql',
        'NAME': 'shop',
        'USER': 'shop',
        'PASSWORD': '{dbpw}',
        'HOST': 'db.internal',
        'PORT': '5432',
    }}
}}

EMAIL_HOST = 'smtp.example.com'
EMAIL_HOST_USER = 'alerts'
EMAIL_HOST_PASSWORD = '{mailpw}'

AWS_ACCESS_KEY_ID = '{akid}'
AWS_SECRET_ACCESS_KEY = '{asec}'
AWS_STORAGE_BUCKET_NAME = 'shop-media'
""", [sec("django-secret-key", "env-secret", dj), sec("password", "password-assignment", dbpw),
      sec("password", "env-password", mailpw), sec("aws-access-key-id", "aws-access-key-id", akid),
      sec("aws-secret-access-key", "aws-secret-access-key", asec)],
    ["'ENGINE': 'django.db.backends.postgresql'", "EMAIL_HOST_USER = 'alerts'", "AWS_STORAGE_BUCKET_NAME = 'shop-media'",
     "ALLOWED_HOSTS = ['shop.example.com']"])

tmp = tempfile.mkdtemp()
try:
    # credentials.json (GCP service account) with a real-format PKCS#8 key made here
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                    "-out", os.path.join(tmp, "sa.pem")], check=True, capture_output=True)
    sa_pem = open(os.path.join(tmp, "sa.pem")).read()
    pkid = rnd(40, HEX)
    escaped = json.dumps(sa_pem)[1:-1]  # the key as it sits inside the JSON string
    cred = {
        "type": "service_account", "project_id": "acme-shop-fake", "private_key_id": pkid,
        "private_key": sa_pem, "client_email": "deployer@acme-shop-fake.iam.gserviceaccount.com",
        "client_id": "100000000000000000001", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    text = json.dumps(cred, indent=2) + "\n"
    key_val = escaped.rstrip("\\n")
    body_lines = [l for l in sa_pem.strip().split("\n") if not l.startswith("-----")]
    write("credentials.json", text,
          [sec("gcp-private-key-id", "gcp-private-key-id", pkid),
           sec("private-key", "private-key", key_val, body_lines),
           sec("email", "email", "deployer@acme-shop-fake.iam.gserviceaccount.com")],
          ['"type": "service_account"', '"project_id": "acme-shop-fake"', '"token_uri": "https://oauth2.googleapis.com/token"'])

    # id_rsa: an OpenSSH private key block
    subprocess.run(["ssh-keygen", "-q", "-t", "rsa", "-b", "2048", "-N", "", "-C", "fixture@mnemo-test",
                    "-f", os.path.join(tmp, "id_rsa")], check=True)
    idrsa = open(os.path.join(tmp, "id_rsa")).read()
    lines = [l for l in idrsa.strip().split("\n") if not l.startswith("-----")]
    write("id_rsa", idrsa, [sec("openssh-private-key", "openssh-private-key", idrsa.strip(), lines)], [])

    # server.pem: a certificate (public, kept) and its private key
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", os.path.join(tmp, "k.pem"), "-out", os.path.join(tmp, "c.pem"), "-days", "3650",
                    "-subj", "/CN=fixture.mnemo.test"], check=True, capture_output=True)
    cert = open(os.path.join(tmp, "c.pem")).read()
    key = open(os.path.join(tmp, "k.pem")).read()
    klines = [l for l in key.strip().split("\n") if not l.startswith("-----")]
    cert_line = [l for l in cert.strip().split("\n") if not l.startswith("-----")][0]
    write("deploy/server.pem", cert + key, [sec("private-key", "private-key", key.strip(), klines)],
          ["-----BEGIN CERTIFICATE-----", cert_line])
finally:
    shutil.rmtree(tmp)

# .npmrc
npmtok = "npm_" + fake(36)
ghtok = "ghp_" + fake(36)
auth = base64.b64encode(("ci:" + rnd(18)).encode()).decode()
write(".npmrc", f"""registry=https://registry.npmjs.org/
//registry.npmjs.org/:_authToken={npmtok}
@acme:registry=https://npm.pkg.github.com/
//npm.pkg.github.com/:_authToken={ghtok}
//nexus.internal/repository/npm/:_auth={auth}
always-auth=true
""", [sec("npm-token", "npm-token", npmtok), sec("github-pat", "github-pat", ghtok), sec("npmrc-auth", "npmrc-auth", auth)],
    ["registry=https://registry.npmjs.org/", "@acme:registry=https://npm.pkg.github.com/", "always-auth=true"])

# docker-compose.yml
pgpw, rootpw, minio, grafana = "compose-" + rnd(12), rnd(16), rnd(24), "Gr4f-" + rnd(8)
slack = "xoxb-%d-%d-%s" % (R.randrange(10**11, 10**12), R.randrange(10**12, 10**13), fake(24))
write("docker-compose.yml", f"""services:
  db:
    image: postgres:16
    environment:
      POSTGRES_USER: shop
      POSTGRES_PASSWORD: {pgpw}
      POSTGRES_DB: shop
  mysql:
    image: mysql:8
    environment:
      - MYSQL_ROOT_PASSWORD={rootpw}
      - MYSQL_DATABASE=legacy
  storage:
    image: minio/minio
    environment:
      MINIO_ROOT_USER: admin
      MINIO_ROOT_PASSWORD: "{minio}"
  grafana:
    image: grafana/grafana
    environment:
      - GF_SECURITY_ADMIN_PASSWORD={grafana}
  bot:
    build: ./bot
    environment:
      SLACK_BOT_TOKEN: {slack}
""", [sec("password", "env-password", pgpw), sec("password", "env-password", rootpw),
      sec("password", "env-password", minio), sec("password", "env-password", grafana),
      sec("slack-token", "slack-token", slack)],
    ["POSTGRES_USER: shop", "POSTGRES_DB: shop", "MYSQL_DATABASE=legacy", "MINIO_ROOT_USER: admin", "image: postgres:16"])

# config.yaml
hook = "T%s/B%s/%s" % (rnd(8, string.ascii_uppercase + string.digits), rnd(8, string.ascii_uppercase + string.digits), fake(24))
gkey = "AIza" + fake(35, ALNUM + "-_")
smtp = "smtp-" + rnd(12)
apik = fake(40)
twilio_sid, twilio_tok = "AC" + rnd(32, HEX), rnd(32, HEX)
write("config.yaml", f"""app:
  name: shop
  port: 8080
notifications:
  slack_webhook: https://hooks.slack.com/services/{hook}
  twilio:
    account_sid: {twilio_sid}
    twilio_auth_token: {twilio_tok}
maps:
  google_api_key: {gkey}
mail:
  host: smtp.example.com
  username: alerts
  password: {smtp}
payments:
  provider_api_key: "{apik}"
""", [sec("slack-webhook", "slack-webhook", hook), sec("twilio-auth-token", "twilio-auth-token", twilio_tok),
      sec("google-api-key", "google-api-key", gkey), sec("password", "password-assignment", smtp),
      sec("generic-secret", "generic-secret", apik)],
    ["name: shop", "port: 8080", "host: smtp.example.com", "username: alerts", "slack_webhook: https://hooks.slack.com/services/"])

# src/client.py: secrets hard-coded in code
anth = "sk-ant-api03-" + fake(93, ALNUM + "-_") + "AA"
hf = "hf_" + "".join(R.choice(string.ascii_letters) for _ in range(30)) + "FAKE"
bearer = fake(40)
write("src/client.py", f"""import requests

ANTHROPIC_KEY = "{anth}"
HF_TOKEN = "{hf}"


def fetch_jobs():
    headers = {{"Authorization": "Bearer {bearer}"}}
    return requests.get("https://api.internal/v2/jobs", headers=headers, timeout=10)


def login(session, password):
    # the password comes from the caller, nothing to redact here
    return session.post("/login", data={{"password": password}})
""", [sec("anthropic-api-key", "anthropic-api-key", anth), sec("huggingface-token", "huggingface-token", hf),
      sec("bearer-token", "bearer-token", bearer)],
    ["def fetch_jobs():", 'data={"password": password}', "def login(session, password):"])

with open(os.path.join(HERE, "repo_manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2)
    f.write("\n")
print("files:", len(manifest), "secrets:", sum(len(m["secrets"]) for m in manifest))

#!/usr/bin/env python3
"""make_corpus.py - writes corpus.jsonl, the scanner's corpus of fake secrets and
fake personal data (a developer tool: its output is committed, CI does not run it).

Every value is fake: tokens are random strings in the provider's format (seeded,
so the file is reproducible), marked FAKE or EXAMPLE where the format leaves room;
numbers are the issuers' documented test numbers (cards, IBANs, the Swedish and
Finnish test ids, the Chinese standard's example...) or generated here so that
they pass their checksums (computed below, independently of src/text/scan_checks.c).
No value is a real person's data or a live credential.

Each line: {"id", "kind", "class", "rule", "text", "value"}: `text` is how a
person or an agent would write it, `value` the exact bytes that must not survive
redaction, `rule` the rule whose marker must replace them.

    python3 tests/data/secrets/make_corpus.py > tests/data/secrets/corpus.jsonl
"""
import json
import random
import string
import sys

R = random.Random(20240611)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def rnd(n, alphabet=ALNUM):
    return "".join(R.choice(alphabet) for _ in range(n))


def fake(n, alphabet=ALNUM, mark="FAKE"):
    """n characters of the alphabet with a FAKE marker inside."""
    body = rnd(n - len(mark), alphabet)
    at = R.randrange(2, len(body) - 2)
    return body[:at] + mark + body[at:]


items = []


def add(kind, cls, rule, text, value):
    assert value in text, (kind, value)
    items.append({"id": "%s-%d" % (kind, sum(1 for i in items if i["kind"] == kind) + 1),
                  "kind": kind, "class": cls, "rule": rule, "text": text, "value": value})


def secret(kind, rule, texts_values):
    for t, v in texts_values:
        add(kind, "secret", rule, t, v)


def pii(kind, rule, texts_values):
    for t, v in texts_values:
        add(kind, "pii", rule, t, v)


# ---------------------------------------------------------------- secrets
v = ["AKIAIOSFODNN7EXAMPLE", "AKIA" + "".join(R.choice(string.ascii_uppercase + "234567") for _ in range(9)) + "EXAMPLE",
     "ASIA" + "".join(R.choice(string.ascii_uppercase + "234567") for _ in range(9)) + "EXAMPLE"]
secret("aws-access-key-id", "aws-access-key-id", [
    ("Deploy user is ci-deployer, access key %s (rotated in March)." % v[0], v[0]),
    ("[default]\naws_access_key_id = %s\nregion = eu-west-1\n" % v[1], v[1]),
    ("The temporary creds from STS were %s, they expire in an hour." % v[2], v[2]),
])
v = ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", fake(40, ALNUM + "+/", "EXAMPLE"), fake(40, ALNUM + "/")]
secret("aws-secret-access-key", "aws-secret-access-key", [
    ("[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = %s\n" % v[0], v[0]),
    ("export AWS_SECRET_ACCESS_KEY=%s" % v[1], v[1]),
    ('{"AccessKeyId": "ASIAXEXAMPLE", "SecretAccessKey": "%s"}' % v[2], v[2]),
])
v = ["ghp_" + fake(36), "ghp_" + fake(36), "ghp_" + fake(36)]
secret("github-pat", "github-pat", [
    ("I used my token %s to push the release tag." % v[0], v[0]),
    ("GITHUB_TOKEN=%s" % v[1], v[1]),
    ("git clone https://x-access-token:%s@github.com/acme/api.git" % v[2], v[2]),
])
v = ["github_pat_" + fake(22) + "_" + rnd(59) for _ in range(3)]
secret("github-fine-grained-pat", "github-fine-grained-pat", [
    ("Fine-grained PAT for the docs bot: %s (repo scope only)" % v[0], v[0]),
    ("gh auth login --with-token <<< %s" % v[1], v[1]),
    ('token: "%s"' % v[2], v[2]),
])
v = ["gho_" + fake(36), "gho_" + fake(36), "gho_" + fake(36)]
secret("github-oauth-token", "github-oauth-token", [
    ("The OAuth app returned access_token %s for octocat." % v[0], v[0]),
    ("hosts.yml:\n  github.com:\n    oauth_token: %s\n    user: octocat\n" % v[1], v[1]),
    ("curl -H 'Authorization: token %s' https://api.github.com/user" % v[2], v[2]),
])
v = ["ghs_" + fake(36), "ghu_" + fake(36), "ghs_" + fake(36)]
secret("github-app-token", "github-app-token", [
    ("Installation token (expires in 1h): %s" % v[0], v[0]),
    ("user-to-server token %s was logged by the webhook handler" % v[1], v[1]),
    ("GH_APP_INSTALLATION_TOKEN=%s" % v[2], v[2]),
])
v = ["ghr_" + fake(76), "ghr_" + fake(36), "ghr_" + fake(60)]
secret("github-refresh-token", "github-refresh-token", [
    ("refresh_token=%s&grant_type=refresh_token" % v[0], v[0]),
    ("Saved the GitHub App refresh token %s in the keychain." % v[1], v[1]),
    ('{"refresh_token": "%s", "expires_in": 15811200}' % v[2], v[2]),
])
v = ["glpat-" + fake(20, ALNUM + "-_"), "glpat-" + fake(20, ALNUM + "-_"), "glpat-" + fake(20, ALNUM + "-_")]
secret("gitlab-pat", "gitlab-pat", [
    ("GitLab token for the mirror job: %s" % v[0], v[0]),
    ("export GITLAB_TOKEN=%s" % v[1], v[1]),
    ("git remote add origin https://oauth2:%s@gitlab.com/acme/api.git" % v[2], v[2]),
])
v = ["glptt-" + fake(40, HEX, "feed"), "gldt-" + fake(20, ALNUM + "-_"), "GR1348941" + fake(20, ALNUM + "-_")]
secret("gitlab-token", "gitlab-token", [
    ("curl -X POST -F token=%s -F ref=main https://gitlab.example.com/api/v4/projects/9/trigger/pipeline" % v[0], v[0]),
    ("Deploy token for the registry: username gitlab+deploy-token-7, password %s" % v[1], v[1]),
    ("gitlab-runner register --registration-token %s" % v[2], v[2]),
])
v = ["xoxb-%d-%d-%s" % (R.randrange(10**11, 10**12), R.randrange(10**12, 10**13), fake(24)),
     "xoxp-%d-%d-%d-%s" % (R.randrange(10**11, 10**12), R.randrange(10**11, 10**12), R.randrange(10**12, 10**13), fake(32, HEX, "beef")),
     "xapp-1-A%s-%d-%s" % (rnd(10, string.ascii_uppercase + string.digits), R.randrange(10**12, 10**13), rnd(64, HEX))]
secret("slack-token", "slack-token", [
    ("SLACK_BOT_TOKEN=%s" % v[0], v[0]),
    ("The user token %s still has admin scope, revoke it." % v[1], v[1]),
    ("socket mode app token: %s" % v[2], v[2]),
])
w = ["T%s/B%s/%s" % (rnd(8, string.ascii_uppercase + string.digits), rnd(8, string.ascii_uppercase + string.digits), fake(24)) for _ in range(3)]
secret("slack-webhook", "slack-webhook", [
    ("Alerts go to https://hooks.slack.com/services/%s" % w[0], w[0]),
    ('SLACK_WEBHOOK_URL="https://hooks.slack.com/services/%s"' % w[1], w[1]),
    ("curl -X POST -d '{\"text\":\"deploy done\"}' https://hooks.slack.com/services/%s" % w[2], w[2]),
])
v = ["sk_live_" + fake(24), "sk_test_" + fake(99), "rk_live_" + fake(24)]
secret("stripe-secret-key", "stripe-secret-key", [
    ("Stripe live key is %s, never commit it." % v[0], v[0]),
    ("STRIPE_SECRET_KEY=%s" % v[1], v[1]),
    ("stripe.api_key = '%s'" % v[2], v[2]),
])
v = ["whsec_" + fake(32), "whsec_" + fake(32), "whsec_" + fake(32)]
secret("stripe-webhook-secret", "stripe-webhook-secret", [
    ("endpoint secret: %s" % v[0], v[0]),
    ("STRIPE_WEBHOOK_SECRET=%s" % v[1], v[1]),
    ("stripe listen printed 'Your webhook signing secret is %s'" % v[2], v[2]),
])
v = ["sk-proj-" + fake(48, ALNUM + "-_") + "T3BlbkFJ" + rnd(48, ALNUM + "-_"),
     "sk-" + fake(20) + "T3BlbkFJ" + rnd(20),
     "sk-svcacct-" + fake(74, ALNUM + "-_")]
secret("openai-api-key", "openai-api-key", [
    ("OPENAI_API_KEY=%s" % v[0], v[0]),
    ("I set openai.api_key = \"%s\" in the notebook" % v[1], v[1]),
    ("the service account key %s belongs to the eval pipeline" % v[2], v[2]),
])
v = ["sk-ant-api03-" + fake(93, ALNUM + "-_") + "AA", "sk-ant-api03-" + fake(93, ALNUM + "-_") + "AA",
     "sk-ant-admin01-" + fake(93, ALNUM + "-_") + "AA"]
secret("anthropic-api-key", "anthropic-api-key", [
    ("ANTHROPIC_API_KEY=%s" % v[0], v[0]),
    ("client = anthropic.Anthropic(api_key=\"%s\")" % v[1], v[1]),
    ("Admin key for the org: %s" % v[2], v[2]),
])
v = ["AIza" + fake(35, ALNUM + "-_"), "AIza" + fake(35, ALNUM + "-_"), "AIza" + fake(35, ALNUM + "-_")]
secret("google-api-key", "google-api-key", [
    ("<script src=\"https://maps.googleapis.com/maps/api/js?key=%s\"></script>" % v[0], v[0]),
    ("firebaseConfig = { apiKey: \"%s\", authDomain: \"acme.firebaseapp.com\" }" % v[1], v[1]),
    ("The Places API key %s is restricted to our IPs." % v[2], v[2]),
])
v = ["GOCSPX-" + fake(28, ALNUM + "-_"), "GOCSPX-" + fake(28, ALNUM + "-_"), "GOCSPX-" + fake(28, ALNUM + "-_")]
secret("google-oauth-client-secret", "google-oauth-client-secret", [
    ('{"web": {"client_id": "1234-abc.apps.googleusercontent.com", "client_secret": "%s"}}' % v[0], v[0]),
    ("GOOGLE_CLIENT_SECRET=%s" % v[1], v[1]),
    ("OAuth client secret for staging is %s" % v[2], v[2]),
])
v = ["ya29." + fake(120, ALNUM + "-_"), "ya29." + fake(80, ALNUM + "-_"), "1//0" + fake(60, ALNUM + "-_")]
secret("google-oauth-token", "google-oauth-token", [
    ("gcloud auth print-access-token gave %s" % v[0], v[0]),
    ("Authorization header was 'OAuth %s'" % v[1], v[1]),
    ("refresh token from the consent screen: %s" % v[2], v[2]),
])
v = ["SG." + fake(22, ALNUM + "-_") + "." + rnd(43, ALNUM + "-_") for _ in range(3)]
secret("sendgrid-api-key", "sendgrid-api-key", [
    ("SENDGRID_API_KEY=%s" % v[0], v[0]),
    ("sg = SendGridAPIClient('%s')" % v[1], v[1]),
    ("Mail stopped because the key %s was revoked." % v[2], v[2]),
])
v = ["npm_" + fake(36), "npm_" + fake(36), "npm_" + fake(36)]
secret("npm-token", "npm-token", [
    ("NPM_TOKEN=%s" % v[0], v[0]),
    ("publish with the automation token %s" % v[1], v[1]),
    ("//registry.npmjs.org/:_authToken=%s" % v[2], v[2]),
])
v = [rnd(48, B64) + "==", fake(32, B64), rnd(44, B64)]
secret("npmrc-auth", "npmrc-auth", [
    ("//npm.pkg.example.com/:_auth=%s\nalways-auth=true" % v[0], v[0]),
    ("//registry.example.org/:_password=%s" % v[1], v[1]),
    ('npmAuthToken: "%s"' % v[2], v[2]),
])
v = [rnd(86, B64) + "==" for _ in range(3)]
secret("azure-storage-key", "azure-storage-key", [
    ("DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=%s;EndpointSuffix=core.windows.net" % v[0], v[0]),
    ("Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=%s" % v[1][:44], v[1][:44]),
    ("AZURE_STORAGE_CONNECTION_STRING=\"DefaultEndpointsProtocol=https;AccountName=logs;AccountKey=%s\"" % v[2], v[2]),
])
v = [rnd(3, ALNUM) + "8Q~" + fake(34, ALNUM + "_~.-") for _ in range(3)]
secret("azure-ad-client-secret", "azure-ad-client-secret", [
    ("AZURE_CLIENT_SECRET=%s" % v[0], v[0]),
    ("The app registration secret (expires 2026) is %s" % v[1], v[1]),
    ('"clientSecret": "%s"' % v[2], v[2]),
])
v = ["dop_v1_" + rnd(64, HEX), "dop_v1_" + rnd(64, HEX), "doo_v1_" + rnd(64, HEX)]
secret("digitalocean-token", "digitalocean-token", [
    ("doctl auth init -t %s" % v[0], v[0]),
    ("DIGITALOCEAN_TOKEN=%s" % v[1], v[1]),
    ("oauth token for the droplet manager: %s" % v[2], v[2]),
])
v = ["%s-%s-%s-%s-%s" % (rnd(8, HEX), rnd(4, HEX), rnd(4, HEX), rnd(4, HEX), rnd(12, HEX)) for _ in range(2)] + ["HRKU-" + fake(60, ALNUM + "-_")]
secret("heroku-api-key", "heroku-api-key", [
    ("HEROKU_API_KEY=%s" % v[0], v[0]),
    ("heroku api key: %s" % v[1], v[1]),
    ("new-style Heroku token %s" % v[2], v[2]),
])
v = ["hf_" + "".join(R.choice(string.ascii_letters) for _ in range(30)) + "FAKE" for _ in range(3)]
secret("huggingface-token", "huggingface-token", [
    ("huggingface-cli login --token %s" % v[0], v[0]),
    ("HF_TOKEN=%s" % v[1], v[1]),
    ("The read token %s can pull the gated Llama weights." % v[2], v[2]),
])
v = ["pypi-AgEIcHlwaS5vcmc" + fake(60, ALNUM + "-_") for _ in range(3)]
secret("pypi-token", "pypi-token", [
    ("[pypi]\nusername = __token__\npassword = %s\n" % v[0], v[0]),
    ("twine upload -u __token__ -p %s dist/*" % v[1], v[1]),
    ("TWINE_PASSWORD=%s" % v[2], v[2]),
])
v = ["dckr_pat_" + fake(27, ALNUM + "-_") for _ in range(3)]
secret("dockerhub-pat", "dockerhub-pat", [
    ("echo %s | docker login -u acmebot --password-stdin" % v[0], v[0]),
    ("DOCKERHUB_TOKEN=%s" % v[1], v[1]),
    ("Docker Hub access token for CI: %s" % v[2], v[2]),
])
v = ["%d:AA%s" % (R.randrange(10**9, 10**10 - 1), fake(33, ALNUM + "-_")) for _ in range(3)]
secret("telegram-bot-token", "telegram-bot-token", [
    ("TELEGRAM_BOT_TOKEN=%s" % v[0], v[0]),
    ("BotFather gave me %s for @acme_alerts_bot" % v[1], v[1]),
    ("requests.get(f'https://api.telegram.org/bot%s/getMe')" % v[2], v[2]),
])
v = ["M" + fake(25, ALNUM) + "." + rnd(6, ALNUM + "-_") + "." + rnd(38, ALNUM + "-_") for _ in range(3)]
secret("discord-bot-token", "discord-bot-token", [
    ("DISCORD_TOKEN=%s" % v[0], v[0]),
    ("client.run('%s')  # discord bot" % v[1], v[1]),
    ("The Discord bot token %s was pasted in #general, rotate it." % v[2], v[2]),
])
w = [fake(68, ALNUM + "-_") for _ in range(3)]
secret("discord-webhook", "discord-webhook", [
    ("https://discord.com/api/webhooks/1187000000000000001/%s" % w[0], w[0]),
    ("DISCORD_WEBHOOK=https://discordapp.com/api/webhooks/998877665544332211/%s" % w[1], w[1]),
    ("notify via discord.com/api/webhooks/123456789012345678/%s on failure" % w[2], w[2]),
])
v = ["SK" + rnd(32, HEX) for _ in range(2)] + [rnd(32, HEX)]
secret("twilio-api-key", "twilio-api-key", [
    ("TWILIO_API_KEY=%s" % v[0], v[0]),
    ("Twilio API key SID %s with its secret in 1Password" % v[1], v[1]),
])
secret("twilio-auth-token", "twilio-auth-token", [
    ("TWILIO_AUTH_TOKEN=%s" % v[2], v[2]),
    ("twilio auth token: %s" % (w := rnd(32, HEX)), w),
    ("client = Client(account_sid, twilio_token='%s')" % (w2 := rnd(32, HEX)), w2),
])
v = ["key-" + rnd(32, HEX), "key-" + rnd(32, HEX), "%s-%s-%s" % (rnd(32, HEX), rnd(8, HEX), rnd(8, HEX))]
secret("mailgun-api-key", "mailgun-api-key", [
    ("MAILGUN_API_KEY=%s" % v[0], v[0]),
    ("curl -s --user 'api:%s' https://api.mailgun.net/v3/mg.acme.io/messages" % v[1], v[1]),
    ("mailgun private key %s" % v[2], v[2]),
])
v = [rnd(32, HEX) + "-us" + str(R.randrange(1, 21)) for _ in range(3)]
secret("mailchimp-api-key", "mailchimp-api-key", [
    ("MAILCHIMP_API_KEY=%s" % v[0], v[0]),
    ("Mailchimp key %s (audience sync)" % v[1], v[1]),
    ("client.set_config({'api_key': '%s', 'server': 'us6'})" % v[2], v[2]),
])
v = ["shpat_" + rnd(32, HEX), "shpss_" + rnd(32, HEX), "shpca_" + rnd(32, HEX)]
secret("shopify-token", "shopify-token", [
    ("X-Shopify-Access-Token: %s" % v[0], v[0]),
    ("SHOPIFY_API_SECRET=%s" % v[1], v[1]),
    ("custom app token %s for acme-store.myshopify.com" % v[2], v[2]),
])
v = ["hvs." + fake(90, ALNUM + "-_"), "hvs." + fake(24), "hvb." + fake(120, ALNUM + "-_")]
secret("vault-token", "vault-token", [
    ("export VAULT_TOKEN=%s" % v[0], v[0]),
    ("vault login %s" % v[1], v[1]),
    ("batch token for the job: %s" % v[2], v[2]),
])
v = ["dapi" + rnd(32, HEX), "dapi" + rnd(32, HEX) + "-2", "dapi" + rnd(32, HEX)]
secret("databricks-token", "databricks-token", [
    ("DATABRICKS_TOKEN=%s" % v[0], v[0]),
    ("databricks configure --token  # then paste %s" % v[1], v[1]),
    ("spark.conf.set('spark.databricks.token', '%s')" % v[2], v[2]),
])
v = [rnd(14, string.ascii_lowercase + string.digits) + ".atlasv1." + rnd(67, ALNUM + "-_=") for _ in range(3)]
secret("terraform-cloud-token", "terraform-cloud-token", [
    ('credentials "app.terraform.io" {\n  token = "%s"\n}' % v[0], v[0]),
    ("TF_TOKEN_app_terraform_io=%s" % v[1], v[1]),
    ("team token %s" % v[2], v[2]),
])
v = ["ATATT3xFfGF0" + fake(180, ALNUM + "-_") + "=" + rnd(8, "ABCDEF0123456789") for _ in range(3)]
secret("atlassian-api-token", "atlassian-api-token", [
    ("JIRA_API_TOKEN=%s" % v[0], v[0]),
    ("curl -u me@acme.io:%s https://acme.atlassian.net/rest/api/3/myself" % v[1], v[1]),
    ("Confluence token %s" % v[2], v[2]),
])
v = ["lin_api_" + fake(40) for _ in range(3)]
secret("linear-api-key", "linear-api-key", [
    ("LINEAR_API_KEY=%s" % v[0], v[0]),
    ("Authorization: %s" % v[1], v[1]),
    ("linear personal key %s" % v[2], v[2]),
])
v = ["NRAK-" + rnd(27, string.ascii_uppercase + string.digits) for _ in range(3)]
secret("newrelic-api-key", "newrelic-api-key", [
    ("NEW_RELIC_API_KEY=%s" % v[0], v[0]),
    ("newrelic profile add --apiKey %s" % v[1], v[1]),
    ("user key %s for the dashboards" % v[2], v[2]),
])
v = ["glsa_" + fake(32) + "_" + rnd(8, HEX), "glsa_" + fake(32) + "_" + rnd(8, HEX), "glc_" + rnd(80, B64) + "=="]
secret("grafana-token", "grafana-token", [
    ("GRAFANA_TOKEN=%s" % v[0], v[0]),
    ("service account token %s (viewer)" % v[1], v[1]),
    ("grafana cloud access policy token %s" % v[2], v[2]),
])
v = ["PMAK-" + rnd(24, HEX) + "-" + rnd(34, HEX) for _ in range(3)]
secret("postman-api-key", "postman-api-key", [
    ("POSTMAN_API_KEY=%s" % v[0], v[0]),
    ("newman run collection.json --env-var apiKey=%s" % v[1], v[1]),
    ("X-Api-Key: %s" % v[2], v[2]),
])
v = ["dp.pt." + fake(43) for _ in range(3)]
secret("doppler-token", "doppler-token", [
    ("DOPPLER_TOKEN=%s" % v[0], v[0]),
    ("doppler configure set token %s" % v[1], v[1]),
    ("personal token %s" % v[2], v[2]),
])
v = ["sbp_" + rnd(40, HEX) for _ in range(3)]
secret("supabase-token", "supabase-token", [
    ("SUPABASE_ACCESS_TOKEN=%s" % v[0], v[0]),
    ("supabase login --token %s" % v[1], v[1]),
    ("management api token %s" % v[2], v[2]),
])
v = ["sk.eyJ" + rnd(60, ALNUM) + "." + rnd(22, ALNUM + "-_") for _ in range(3)]
secret("mapbox-secret-token", "mapbox-secret-token", [
    ("MAPBOX_SECRET_TOKEN=%s" % v[0], v[0]),
    ("mapbox download token %s" % v[1], v[1]),
    ("MAPBOX_DOWNLOADS_TOKEN=%s" % v[2], v[2]),
])
BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l".upper()
v = ["AGE-SECRET-KEY-1" + rnd(58, BECH) for _ in range(3)]
secret("age-secret-key", "age-secret-key", [
    ("# created: 2024-05-01\n# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\n%s\n" % v[0], v[0]),
    ("SOPS_AGE_KEY=%s" % v[1], v[1]),
    ("the age identity for the backups is %s" % v[2], v[2]),
])
v = ["sq0atp-" + fake(22, ALNUM + "-_"), "sq0csp-" + fake(43, ALNUM + "-_"), "EAAA" + fake(60, ALNUM + "-_")]
secret("square-token", "square-token", [
    ("SQUARE_ACCESS_TOKEN=%s" % v[0], v[0]),
    ("square application secret %s" % v[1], v[1]),
    ("Square sandbox token %s" % v[2], v[2]),
])


def jwt(payload):
    import base64
    enc = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
    return enc(b'{"alg":"HS256","typ":"JWT"}') + "." + enc(payload.encode()) + "." + rnd(43, B64URL)


v = [jwt('{"sub":"1234567890","name":"Test User FAKE","iat":1516239022}'),
     jwt('{"sub":"svc-ci","role":"admin","exp":1900000000}'),
     jwt('{"iss":"https://auth.example.com","aud":"api","sub":"u_42"}')]
secret("jwt", "jwt", [
    ("Authorization: JWT %s" % v[0], v[0]),
    ("The session cookie was token=%s; Path=/; HttpOnly" % v[1], v[1]),
    ("decoded this one on jwt.io: %s" % v[2], v[2]),
])
v = ["S3cr3t-" + rnd(6), "p@ss%sw0rd" % rnd(3), rnd(16)]
secret("url-password", "url-password", [
    ("DATABASE_URL=postgres://app:%s@db.internal:5432/app" % v[0], v[0]),
    ("mongodb+srv://admin:%s@cluster0.ab1cd.mongodb.net/prod?retryWrites=true" % v[1], v[1]),
    ("redis://:%s@cache.internal:6379/0" % v[2], v[2]),
])
v = ["sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2030-01-01T00:00:00Z&sig=" + rnd(43, ALNUM) + "%3D", rnd(32, HEX), rnd(24)]
secret("url-query-secret", "url-query-secret", [
    ("https://acmelogs.blob.core.windows.net/raw?%s" % v[0], v[0].split("sig=")[1]),
    ("GET /api/v1/export?format=csv&api_key=%s HTTP/1.1" % v[1], v[1]),
    ("jdbc:mysql://db:3306/shop?user=shop&password=%s&useSSL=true" % v[2], v[2]),
])
import base64 as _b64
v = [_b64.b64encode(("deploy:%s" % rnd(14)).encode()).decode(), _b64.b64encode(b"admin:Adm1nFAKEpass!").decode(),
     _b64.b64encode(("ci-bot:%s" % rnd(20)).encode()).decode()]
secret("basic-auth-header", "basic-auth-header", [
    ("Authorization: Basic %s" % v[0], v[0]),
    ("curl -H \"Authorization: Basic %s\" https://ci.internal/api" % v[1], v[1]),
    ("headers = {'Authorization': 'Basic %s'}" % v[2], v[2]),
])
v = [fake(40, ALNUM), rnd(64, HEX), fake(32, ALNUM + "-_.")]
secret("bearer-token", "bearer-token", [
    ("Authorization: Bearer %s" % v[0], v[0]),
    ("curl -H 'Authorization: Bearer %s' https://api.internal/v2/jobs" % v[1], v[1]),
    ("the request had 'bearer %s' in its headers" % v[2], v[2]),
])
v = ["Tr0ub4dor-" + rnd(4), rnd(12), "pa55-" + rnd(8)]
secret("curl-user-password", "curl-user-password", [
    ("curl -u admin:%s https://jenkins.internal/api/json" % v[0], v[0]),
    ("curl --user deploy:%s -X POST https://nexus.internal/upload" % v[1], v[1]),
    ("curl -s -u 'ci:%s' https://artifactory.internal/api/system/ping" % v[2], v[2]),
])
v = ["Sup3r$ecret" + rnd(3), "Db" + rnd(10), "Pg-" + rnd(9)]
secret("connection-string-password", "connection-string-password", [
    ("Server=tcp:acme.database.windows.net,1433;Database=shop;User ID=shopadmin;Password=%s;Encrypt=true;" % v[0], v[0]),
    ("Driver={ODBC Driver 18 for SQL Server};Server=db01;Uid=report;Pwd=%s;" % v[1], v[1]),
    ("psql \"host=db.internal port=5432 dbname=app user=app password=%s sslmode=require\"" % v[2], v[2]),
])
v = [rnd(20), "gh-" + rnd(14), rnd(16)]
secret("netrc-password", "netrc-password", [
    ("machine api.heroku.com\n  login me@acme.io\n  password %s\n" % v[0], v[0]),
    ("machine git.internal login ci password %s" % v[1], v[1]),
    ("~/.netrc:\nmachine pypi.internal\nlogin uploader\npassword %s" % v[2], v[2]),
])
v = ["hunter2" + rnd(3), "Pa$$w0rd" + rnd(2), "qwerty" + rnd(5), "Winter2024!" + rnd(2)]
secret("env-password", "env-password", [
    ("POSTGRES_PASSWORD=%s" % v[0], v[0]),
    ("export DB_PASSWORD='%s'" % v[1], v[1]),
    ("      - MYSQL_ROOT_PASSWORD=%s" % v[2], v[2]),
    ("SMTP_PASS: \"%s\"" % v[3], v[3]),
])
v = [fake(32), rnd(64, HEX), "0x" + rnd(64, HEX), rnd(40, B64)]
secret("env-secret", "env-secret", [
    ("JWT_SECRET=%s" % v[0], v[0]),
    ("export SESSION_SECRET=%s" % v[1], v[1]),
    ("DEPLOYER_PRIVATE_KEY=%s" % v[2], v[2]),
    ("  ENCRYPTION_KEY: %s" % v[3], v[3]),
])
v = ["Kube" + rnd(12), rnd(24), rnd(30, B64)]
secret("k8s-env-secret", "k8s-env-secret", [
    ("env:\n  - name: DB_PASSWORD\n    value: \"%s\"\n" % v[0], v[0]),
    ("        - name: API_TOKEN\n          value: %s\n" % v[1], v[1]),
    ("  - name: SIGNING_KEY\n    value: '%s'\n" % v[2], v[2]),
])
v = ["hunter2", "correct-horse-" + rnd(5), "S3cure!" + rnd(4), rnd(12), "m0nk3y" + rnd(3)]
secret("password-assignment", "password-assignment", [
    ('password = "hunter2"', v[0]),
    ("DATABASES = {'default': {'USER': 'shop', 'PASSWORD': '%s', 'HOST': 'db'}}" % v[1], v[1]),
    ("spring.datasource.password=%s" % v[2], v[2]),
    ("smtp:\n  user: alerts\n  password: %s\n" % v[3], v[3]),
    ('{"username": "admin", "password": "%s"}' % v[4], v[4]),
])
v = ["Summer" + str(R.randrange(2020, 2026)) + "!", "b4n4n4-" + rnd(4), "7" + rnd(9)]
secret("password-in-text", "password-in-text", [
    ("The admin password is %s, change it after the demo." % v[0], v[0]),
    ("the guest wifi password is %s if anyone asks" % v[1], v[1]),
    ("Logged in as root, pwd %s" % v[2], v[2]),
])
v = [fake(40), "django-insecure-" + rnd(30, string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)"), rnd(48, B64), fake(32)]
secret("generic-secret", "generic-secret", [
    ('client_secret = "%s"' % v[0], v[0]),
    ("app.secret_key = '%s'" % v[1], v[1]),
    ("webhook:\n  signing_key: %s\n" % v[2], v[2]),
    ('{"api_key": "%s", "region": "eu"}' % v[3], v[3]),
])
v = ["Xml" + rnd(10), rnd(32, HEX), rnd(20)]
secret("xml-secret", "xml-secret", [
    ("<datasource><username>app</username><password>%s</password></datasource>" % v[0], v[0]),
    ("<apiKey>%s</apiKey>" % v[1], v[1]),
    ("<server><id>nexus</id><password>%s</password></server>" % v[2], v[2]),
])


def pem_body(nbytes):
    raw = bytes(R.randrange(256) for _ in range(nbytes))
    b = _b64.b64encode(raw).decode()
    return "\n".join(b[i:i + 64] for i in range(0, len(b), 64))


v = ["-----BEGIN RSA PRIVATE KEY-----\n" + pem_body(600) + "\n-----END RSA PRIVATE KEY-----",
     "-----BEGIN PRIVATE KEY-----\n" + pem_body(300) + "\n-----END PRIVATE KEY-----",
     "-----BEGIN EC PRIVATE KEY-----\n" + pem_body(120) + "\n-----END EC PRIVATE KEY-----"]
secret("private-key", "private-key", [
    ("Here is the key the old server used:\n%s\nDo not reuse it." % v[0], v[0]),
    ("-----BEGIN CERTIFICATE-----\nMIIBFAKE\n-----END CERTIFICATE-----\n%s\n" % v[1], v[1]),
    ("ec key for the signer:\n%s" % v[2], v[2]),
])
json_key = "-----BEGIN PRIVATE KEY-----\\n" + pem_body(300).replace("\n", "\\n") + "\\n-----END PRIVATE KEY-----\\n"
secret("private-key", "private-key", [
    ('{"type": "service_account", "project_id": "acme-prod", "private_key": "%s"}' % json_key, json_key[:-2]),
])
v = ["-----BEGIN OPENSSH PRIVATE KEY-----\n" + pem_body(400).replace("\n", "")[:70 * 6] + "\n-----END OPENSSH PRIVATE KEY-----"]
v[0] = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(v[0][36:-34][i:i + 70] for i in range(0, 420, 70)) + "\n-----END OPENSSH PRIVATE KEY-----"
v += ["-----BEGIN OPENSSH PRIVATE KEY-----\n" + pem_body(250) + "\n-----END OPENSSH PRIVATE KEY-----",
      "-----BEGIN OPENSSH PRIVATE KEY-----\n" + pem_body(180) + "\n-----END OPENSSH PRIVATE KEY-----"]
secret("openssh-private-key", "openssh-private-key", [
    ("cat ~/.ssh/id_ed25519\n%s\n" % v[0], v[0]),
    ("deploy key (read-only):\n%s" % v[1], v[1]),
    ("%s\n" % v[2], v[2]),
])
v = ["-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + pem_body(500) + "\n=" + rnd(4, B64) + "\n-----END PGP PRIVATE KEY BLOCK-----" for _ in range(3)]
secret("pgp-private-key", "pgp-private-key", [
    ("gpg --export-secret-keys --armor release@acme.io\n%s" % v[0], v[0]),
    ("signing key for the apt repo:\n%s\n" % v[1], v[1]),
    ("%s" % v[2], v[2]),
])
def putty(nlines):
    pub = "\n".join(rnd(64, B64) for _ in range(4))
    priv = "\n".join(rnd(64, B64) for _ in range(nlines - 1)) + "\n" + rnd(24, B64) + "="
    text = ("PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: fixture-key-FAKE\n"
            "Public-Lines: 4\n%s\nPrivate-Lines: %d\n%s\nPrivate-MAC: %s\n" % (pub, nlines, priv, rnd(64, HEX)))
    return text, priv


secret("putty-private-key", "putty-private-key", [putty(n) for n in (14, 8, 3)])
v = [rnd(40, HEX) for _ in range(3)]
secret("gcp-private-key-id", "gcp-private-key-id", [
    ('{"type": "service_account", "private_key_id": "%s"}' % v[0], v[0]),
    ('  "private_key_id": "%s",' % v[1], v[1]),
    ('"private_key_id":"%s"' % v[2], v[2]),
])

# Hand-made fakes as people type them: counting sequences, alternating
# case, digits outside a format's alphabet. The prefix or the name says what
# they stand for, so they are redacted like real ones.
for kind, rule, text, value in [
    ("aws-access-key-id", "aws-access-key-id", "aws_access_key_id=AKIAJ5Q7R2D9EXAMPLE1", "AKIAJ5Q7R2D9EXAMPLE1"),
    ("github-pat", "github-pat", "my github token is ghp_aBcD1234eFgH5678iJkL9012mNoP3456qRsT",
     "ghp_aBcD1234eFgH5678iJkL9012mNoP3456qRsT"),
    ("slack-token", "slack-token", "slack: xoxb-2048-4096-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-2048-4096-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("slack-webhook", "slack-webhook", "webhook https://hooks.slack.com/services/T0ABC1234/B0DEF5678/aBcDeFgHiJkLmNoPqRsTuVwX",
     "T0ABC1234/B0DEF5678/aBcDeFgHiJkLmNoPqRsTuVwX"),
    ("stripe-secret-key", "stripe-secret-key", "STRIPE_KEY=sk_live_51HxYzAbCdEfGhIjKlMnOpQr", "sk_live_51HxYzAbCdEfGhIjKlMnOpQr"),
    ("openai-api-key", "openai-api-key", "openai key sk-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV",
     "sk-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"),
    ("anthropic-api-key", "anthropic-api-key",
     "ANTHROPIC_API_KEY=sk-ant-api03-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8Kl9Mn0Op1Qr2St3Uv4Wx5Yz6-AbCdEfAA",
     "sk-ant-api03-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8Kl9Mn0Op1Qr2St3Uv4Wx5Yz6-AbCdEfAA"),
    ("env-secret", "env-secret", "API_SECRET=9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("env-password", "env-password", "DB_PASSWORD=12345678!", "12345678!"),
    ("url-password", "url-password", "mongodb://root:hunter2@mongo:27017", "hunter2"),
]:
    add(kind, "secret", rule, text, value)

# ---------------------------------------------------------------- personal data


def luhn_ok(d):
    s = 0
    for i, c in enumerate(reversed(d)):
        x = int(c)
        if i % 2:
            x *= 2
            if x > 9:
                x -= 9
        s += x
    return s % 10 == 0


def luhn_complete(prefix):
    for c in "0123456789":
        if luhn_ok(prefix + c):
            return prefix + c


pii("email", "email", [
    ("Contact the reporter at maria.kowalska@fastmail.com for the repro.", "maria.kowalska@fastmail.com"),
    ("Author: Jean Dupont <jean.dupont+mnemo@example.org>", "jean.dupont+mnemo@example.org"),
    ("send the invoice to billing.ops@acme-widgets.co.uk please", "billing.ops@acme-widgets.co.uk"),
    ("mailto:h.tanaka@example.jp", "h.tanaka@example.jp"),
])
pii("phone", "phone-international", [
    ("You can reach me on +44 20 7946 0958 in the afternoon.", "+44 20 7946 0958"),
    ("Customer callback number: +1 415 555 0132", "+1 415 555 0132"),
    ("WhatsApp +33 6 12 34 56 78", "+33 6 12 34 56 78"),
    ("on-call phone +49 (30) 901820 77", "+49 (30) 901820 77"),
    ("E.164 form +14155550199 is what Twilio wants", "+14155550199"),
])
pii("phone", "phone-us", [
    ("Call (212) 555-0147 to reschedule.", "(212) 555-0147"),
    ("fake number for the form: 555-123-4567", "555-123-4567"),
    ("Her cell is 415-555-0198.", "415-555-0198"),
    ("fax 303.555.0123", "303.555.0123"),
])
pii("phone", "phone-uk", [
    ("ring me on 07700 900123", "07700 900123"),
    ("office 020 7946 0321", "020 7946 0321"),
    ("Manchester desk: 0161 496 0018", "0161 496 0018"),
])
pii("phone", "phone-fr", [
    ("mon portable : 06 12 34 56 78", "06 12 34 56 78"),
    ("bureau 01.42.68.53.07", "01.42.68.53.07"),
    ("appelez le 04-91-23-45-67", "04-91-23-45-67"),
])
pii("phone", "phone-context", [
    ("Telefon: 030 12345678", "030 12345678"),
    ("mobile 0412 345 678 (AU)", "0412 345 678"),
    ("tel. 089 1234567", "089 1234567"),
])
pii("credit-card", "credit-card", [
    ("Test with card 4111 1111 1111 1111, any CVC.", "4111 1111 1111 1111"),
    ("customer paid with 5555555555554444 exp 09/27", "5555555555554444"),
    ("Amex on file: 3782 822463 10005", "3782 822463 10005"),
    ("card_number=4242-4242-4242-4242", "4242-4242-4242-4242"),
    ("Discover 6011 1111 1111 1117", "6011 1111 1111 1117"),
    ("JCB 3530111333300000 declined", "3530111333300000"),
])
pii("iban", "iban", [
    ("Please wire to GB82 WEST 1234 5698 7654 32.", "GB82 WEST 1234 5698 7654 32"),
    ("IBAN: DE89370400440532013000", "DE89370400440532013000"),
    ("refund to FR14 2004 1010 0505 0001 3M02 606", "FR14 2004 1010 0505 0001 3M02 606"),
    ("NL91ABNA0417164300 (ABN AMRO)", "NL91ABNA0417164300"),
])
pii("us-ssn", "us-ssn", [
    ("SSN 078-05-1120 came back invalid from the SSA check", "078-05-1120"),
    ("applicant ssn: 219-09-9999", "219-09-9999"),
    ("Social Security number 123456789 on the W-4", "123456789"),
])


def itin():
    g = R.choice(list(range(70, 89)) + list(range(50, 66)))
    return "9%02d-%02d-%04d" % (R.randrange(0, 100), g, R.randrange(1, 10000))


v = [itin() for _ in range(3)]
pii("us-itin", "us-itin", [
    ("ITIN %s for the contractor" % v[0], v[0]),
    ("taxpayer id %s" % v[1], v[1]),
    ("W-7 approved, ITIN: %s" % v[2], v[2]),
])
pii("us-bank-routing", "us-bank-routing", [
    ("routing number 021000021, account 000123456789", "021000021"),
    ("ABA 011000015 (Fed Boston)", "011000015"),
    ("ACH routing: 122105155", "122105155"),
])
NINO1 = "ABCEGHJKLMNOPRSTWXYZ"
NINO2 = "ABCEGHJKLMNPRSTWXYZ"


def nino():
    while True:
        p = R.choice(NINO1) + R.choice(NINO2)
        if p not in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"):
            return p + "%06d" % R.randrange(10**6) + R.choice("ABCD")


v = [nino() for _ in range(3)]
pii("uk-nino", "uk-nino", [
    ("NI number %s" % v[0], v[0]),
    ("National Insurance: %s %s %s %s %s" % (v[1][:2], v[1][2:4], v[1][4:6], v[1][6:8], v[1][8]),
     "%s %s %s %s %s" % (v[1][:2], v[1][2:4], v[1][4:6], v[1][6:8], v[1][8])),
    ("payroll record nino=%s" % v[2], v[2]),
])


def sin():
    while True:
        d = luhn_complete(str(R.choice([1, 2, 3, 4, 5, 6, 7, 9])) + "%07d" % R.randrange(10**7))
        if d:
            return d


v = ["046454286", sin(), sin()]
pii("ca-sin", "ca-sin", [
    ("SIN 046 454 286 (the CRA example)", "046 454 286"),
    ("social insurance number: %s-%s-%s" % (v[1][:3], v[1][3:6], v[1][6:]), "%s-%s-%s" % (v[1][:3], v[1][3:6], v[1][6:])),
    ("NAS %s" % v[2], v[2]),
])


def nir():
    sex = R.choice("12")
    yy = "%02d" % R.randrange(100)
    mm = "%02d" % R.randrange(1, 13)
    dep = "%02d" % R.randrange(1, 96)
    com = "%03d" % R.randrange(1, 990)
    ordre = "%03d" % R.randrange(1, 999)
    base = sex + yy + mm + dep + com + ordre
    key = 97 - int(base) % 97
    return "%s %s %s %s %s %s %02d" % (sex, yy, mm, dep, com, ordre, key)


v = [nir(), nir(), nir()]
pii("fr-nir", "fr-nir", [
    ("numéro de sécurité sociale : %s" % v[0], v[0]),
    ("NIR %s" % v[1].replace(" ", ""), v[1].replace(" ", "")),
    ("carte Vitale %s" % v[2], v[2]),
])


def de_taxid_ok(d):
    if d[0] == "0":
        return False
    cnt = [d[:10].count(c) for c in "0123456789"]
    if max(cnt) > 3 or sum(1 for c in cnt if c >= 2) != 1:
        return False
    p = 10
    for c in d[:10]:
        s = (int(c) + p) % 10
        if s == 0:
            s = 10
        p = (2 * s) % 11
    chk = 11 - p
    if chk == 10:
        chk = 0
    return chk == int(d[10])


def de_taxid():
    while True:
        digits = R.sample("0123456789", 9)
        dup = R.choice(digits)
        first10 = digits + [dup]
        R.shuffle(first10)
        base = "".join(first10)
        for c in "0123456789":
            if de_taxid_ok(base + c):
                return base + c


v = ["86095742719", de_taxid(), de_taxid()]
assert de_taxid_ok(v[0])
pii("de-tax-id", "de-tax-id", [
    ("Steuer-ID 86 095 742 719 (Beispiel des BZSt)", "86 095 742 719"),
    ("Steuerliche Identifikationsnummer: %s" % v[1], v[1]),
    ("tax id (IdNr) %s for the payroll" % v[2], v[2]),
])
DNI = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni():
    n = R.randrange(10**7, 10**8)
    return "%08d%s" % (n, DNI[n % 23])


v = ["12345678Z", dni(), dni()]
pii("es-dni", "es-dni", [
    ("DNI 12345678Z", v[0]),
    ("documento: %s-%s" % (v[1][:8], v[1][8]), "%s-%s" % (v[1][:8], v[1][8])),
    ("mi dni es %s" % v[2], v[2]),
])


def nie():
    L = R.choice("XYZ")
    n = R.randrange(10**7)
    full = "XYZ".index(L) * 10**7 + n
    return "%s%07d%s" % (L, n, DNI[full % 23])


v = [nie() for _ in range(3)]
pii("es-nie", "es-nie", [
    ("NIE %s" % v[0], v[0]),
    ("número de identidad de extranjero: %s" % v[1], v[1]),
    ("tarjeta de residencia %s" % v[2], v[2]),
])
ODD = {**{str(i): x for i, x in enumerate([1, 0, 5, 7, 9, 13, 15, 17, 19, 21])},
       **dict(zip(string.ascii_uppercase, [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]))}


def cf_check(s):
    t = 0
    for i, c in enumerate(s):
        if i % 2 == 0:
            t += ODD[c]
        else:
            t += int(c) if c.isdigit() else ord(c) - 65
    return chr(65 + t % 26)


def cf():
    s = "".join(R.choice(string.ascii_uppercase) for _ in range(6)) + "%02d" % R.randrange(100) + R.choice("ABCDEHLMPRST") + \
        "%02d" % R.randrange(1, 72) + R.choice(string.ascii_uppercase) + "%03d" % R.randrange(1000)
    return s + cf_check(s)


v = ["RSSMRA85T10A562S", cf(), cf()]
assert cf_check(v[0][:15]) == v[0][15]
pii("it-codice-fiscale", "it-codice-fiscale", [
    ("codice fiscale RSSMRA85T10A562S (Mario Rossi, the usual example)", v[0]),
    ("CF: %s" % v[1], v[1]),
    ("il mio codice è %s" % v[2], v[2]),
])


def bsn():
    while True:
        d = [R.randrange(10) for _ in range(8)]
        s = sum((9 - i) * d[i] for i in range(8))
        last = s % 11
        if last < 10 and d[0] != 0:
            return "".join(map(str, d)) + str(last)


v = ["111222333", bsn(), bsn()]
pii("nl-bsn", "nl-bsn", [
    ("BSN 111222333 (testnummer)", v[0]),
    ("burgerservicenummer: %s" % v[1], v[1]),
    ("bsn=%s" % v[2], v[2]),
])


def pesel():
    y = R.randrange(1930, 2015)
    m = R.randrange(1, 13)
    d = R.randrange(1, 29)
    mm = m + (20 if y >= 2000 else 0)
    s = "%02d%02d%02d%04d" % (y % 100, mm, d, R.randrange(10000))
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    c = (10 - sum(int(a) * b for a, b in zip(s, w)) % 10) % 10
    return s + str(c)


v = ["44051401359", pesel(), pesel()]
pii("pl-pesel", "pl-pesel", [
    ("PESEL 44051401359", v[0]),
    ("numer PESEL: %s" % v[1], v[1]),
    ("pesel=%s" % v[2], v[2]),
])


def pnr():
    y = R.randrange(1940, 2010)
    s = "%02d%02d%02d%03d" % (y % 100, R.randrange(1, 13), R.randrange(1, 29), R.randrange(1000))
    for c in "0123456789":
        if luhn_ok(s + c):
            return "%d%s-%s" % (y // 100, s[:6], s[6:] + c)


v = ["19121212-1212", pnr(), pnr()]
pii("se-personnummer", "se-personnummer", [
    ("Tolvan Tolvansson, personnummer 19121212-1212 (Skatteverket's test person)", v[0]),
    ("pnr %s" % v[1][2:], v[1][2:]),
    ("personnummer: %s" % v[2].replace("-", ""), v[2].replace("-", "")),
])
HETU = "0123456789ABCDEFHJKLMNPRSTUVWXY"


def hetu():
    d, m, y = R.randrange(1, 29), R.randrange(1, 13), R.randrange(1930, 2010)
    n = R.randrange(2, 900)
    sign = "-" if y < 2000 else "A"
    return "%02d%02d%02d%s%03d%s" % (d, m, y % 100, sign, n, HETU[int("%02d%02d%02d%03d" % (d, m, y % 100, n)) % 31])


v = ["131052-308T", hetu(), hetu()]
pii("fi-hetu", "fi-hetu", [
    ("henkilötunnus 131052-308T", v[0]),
    ("HETU: %s" % v[1], v[1]),
    ("hetu=%s" % v[2], v[2]),
])


def cpf():
    while True:
        d = [R.randrange(10) for _ in range(9)]
        if len(set(d)) == 1:
            continue
        for k in (9, 10):
            s = sum(d[i] * (k + 1 - i) for i in range(k))
            d.append(s * 10 % 11 % 10)
        t = "".join(map(str, d))
        return "%s.%s.%s-%s" % (t[:3], t[3:6], t[6:9], t[9:])


v = ["111.444.777-35", cpf(), cpf()]
pii("br-cpf", "br-cpf", [
    ("CPF 111.444.777-35", v[0]),
    ("meu CPF é %s" % v[1], v[1]),
    ("cpf=%s" % v[2].replace(".", "").replace("-", ""), v[2].replace(".", "").replace("-", "")),
])
VD = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6], [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
      [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1], [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
      [8, 7, 6, 5, 9, 3, 2, 1, 0, 4], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
VP = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2], [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
      [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1], [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]
VINV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_digit(s):
    c = 0
    for i, ch in enumerate(reversed(s)):
        c = VD[c][VP[(i + 1) % 8][int(ch)]]
    return str(VINV[c])


def aadhaar():
    s = str(R.randrange(2, 10)) + "%010d" % R.randrange(10**10)
    return s + verhoeff_digit(s)


v = [aadhaar() for _ in range(3)]
pii("in-aadhaar", "in-aadhaar", [
    ("Aadhaar %s %s %s" % (v[0][:4], v[0][4:8], v[0][8:]), "%s %s %s" % (v[0][:4], v[0][4:8], v[0][8:])),
    ("aadhaar no: %s" % v[1], v[1]),
    ("UID %s-%s-%s verified" % (v[2][:4], v[2][4:8], v[2][8:]), "%s-%s-%s" % (v[2][:4], v[2][4:8], v[2][8:])),
])


def pan():
    return "".join(R.choice(string.ascii_uppercase) for _ in range(3)) + "P" + R.choice(string.ascii_uppercase) + "%04d" % R.randrange(10000) + R.choice(string.ascii_uppercase)


v = [pan() for _ in range(3)]
pii("in-pan", "in-pan", [
    ("PAN: %s" % v[0], v[0]),
    ("my PAN card number is %s" % v[1], v[1]),
    ("permanent account number %s" % v[2], v[2]),
])
CNW = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]


def cn_id():
    s = "%06d" % R.choice([110105, 310104, 440305, 510107]) + "%04d%02d%02d" % (R.randrange(1950, 2005), R.randrange(1, 13), R.randrange(1, 29)) + "%03d" % R.randrange(1000)
    return s + "10X98765432"[sum(int(a) * b for a, b in zip(s, CNW)) % 11]


v = ["11010519491231002X", cn_id(), cn_id()]
pii("cn-resident-id", "cn-resident-id", [
    ("身份证号 11010519491231002X (the GB 11643 example)", v[0]),
    ("resident id %s" % v[1], v[1]),
    ("ID card: %s" % v[2], v[2]),
])


def inn12():
    while True:
        s = "%010d" % R.randrange(10**9, 10**10)
        w11 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8]
        n11 = sum(int(a) * b for a, b in zip(s, w11)) % 11 % 10
        s += str(n11)
        w12 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]
        s += str(sum(int(a) * b for a, b in zip(s, w12)) % 11 % 10)
        return s


v = ["7707083893", inn12(), inn12()]
pii("ru-inn", "ru-inn", [
    ("ИНН 7707083893", v[0]),
    ("INN: %s" % v[1], v[1]),
    ("taxpayer number (ИНН) %s" % v[2], v[2]),
])


def snils():
    while True:
        n = R.randrange(2000000, 999999999)
        s = "%09d" % n
        t = sum(int(c) * (9 - i) for i, c in enumerate(s))
        c = t % 101
        if c == 100:
            c = 0
        return "%s-%s-%s %02d" % (s[:3], s[3:6], s[6:], c)


v = ["112-233-445 95", snils(), snils()]
pii("ru-snils", "ru-snils", [
    ("СНИЛС 112-233-445 95", v[0]),
    ("SNILS %s" % v[1], v[1]),
    ("snils=%s" % v[2].replace("-", "").replace(" ", ""), v[2].replace("-", "").replace(" ", "")),
])
pii("passport-number", "passport-number", [
    ("passport number: %d" % (p := R.randrange(10**8, 10**9)), str(p)),
    ("Reisepass C01X00T47 (Muster)", "C01X00T47"),
    ("passport no. %s issued 2019" % (q := "X" + "%08d" % R.randrange(10**8)), q),
])
pii("date-of-birth", "date-of-birth", [
    ("DOB: 1987-03-14", "1987-03-14"),
    ("born on 14 March 1987 in Leeds", "14 March 1987"),
    ("date of birth 03/11/1975", "03/11/1975"),
    ("Geburtsdatum: 24.12.1969", "24.12.1969"),
])
pii("ip-address", "ip-address", [
    ("my home IP is 203.0.113.45, please allow-list it", "203.0.113.45"),
    ("client_ip=198.51.100.23 user=jdoe", "198.51.100.23"),
    ("X-Forwarded-For: 192.0.2.146", "192.0.2.146"),
])

# added last, so that the draws above (and the items they made) stay as they were
k = ["AKIA" + "".join(R.choice(string.ascii_uppercase + "234567") for _ in range(9)) + "EXAMPLE"
     for _ in range(3)]
v = [fake(40, ALNUM + "+/"), fake(40, ALNUM + "/", "EXAMPLE"), fake(40, ALNUM + "+")]
secret("aws-secret-beside-key-id", "aws-secret-beside-key-id", [
    ("the AWS key %s with secret %s works for the deploy" % (k[0], v[0]), v[0]),
    ("creds: %s / %s (rotate monthly)" % (k[1], v[1]), v[1]),
    ("Use access key %s and secret key %s for the staging bucket." % (k[2], v[2]), v[2]),
])

for it in items:
    sys.stdout.write(json.dumps(it, ensure_ascii=False) + "\n")

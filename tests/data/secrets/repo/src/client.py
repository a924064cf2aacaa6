import requests

ANTHROPIC_KEY = "sk-ant-api03-ZxH7JtwREk3xldBrwRNYcAWs3T83ybHEpyOGl_m0Q3cg3fMr7A8npNh_OMjdPx1UFAKEtkmYltULTFZb9Zzsja0sTt5PzAA"
HF_TOKEN = "hf_mMLNmlqfIimZvIxPASMGTnniPkoeKrFAKE"


def fetch_jobs():
    headers = {"Authorization": "Bearer rmZqFAKEGrSC8NJDWBegbV2v1jf3Wn7ZVPULvrHq"}
    return requests.get("https://api.internal/v2/jobs", headers=headers, timeout=10)


def login(session, password):
    # the password comes from the caller, nothing to redact here
    return session.post("/login", data={"password": password})

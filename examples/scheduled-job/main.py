"""A scheduled job: runs as a plain script at each firing, reads its payload, prints, exits."""
import json
import os
import urllib.request

url = f"{os.environ['SVC_API_URL']}/api/v1/deployments/{os.environ['SVC_DEPLOYMENT_ID']}/payload"
request = urllib.request.Request(url, headers={"Authorization": f"Bearer {os.environ['SVC_API_KEY']}"})
payload = json.load(urllib.request.urlopen(request))["payload"]
print(f"tick from {os.environ['SVC_AGENT_NAME']} with payload {payload}", flush=True)

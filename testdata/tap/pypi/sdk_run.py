"""The published Python SDK's DeepSeekHarness.run() against the runtime behind out/tap-rt.sh."""
import json, os, sys
from deepseek_harness import DeepSeekHarness, DeepSeekHarnessConfig
port, out = sys.argv[1], sys.argv[2]
work = os.path.join(out, "sdk-work"); os.makedirs(work + "/home", exist_ok=True)
cfg = DeepSeekHarnessConfig(cwd=work, dsh_bin=os.path.join(out, "tap-rt.sh"), dsh_home=work + "/dsh-home",
      base_url="http://127.0.0.1:" + port, api_key="sk-test", env={"HOME": work + "/home"}, request_timeout_seconds=60)
with DeepSeekHarness(cfg) as h:
    r = h.run("Say hello.")
    print(json.dumps({"final_response": r.final_response, "finish_reason": r.finish_reason,
                      "methods": sorted({n.method for n in r.notifications})}))

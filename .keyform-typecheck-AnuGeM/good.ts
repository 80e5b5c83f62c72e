import * as pulumi from "@pulumi/pulumi";
import * as keyform from "../sdk";
void pulumi;
new keyform.Policy("p", { policyName: "p", effect: "EFFECT_ALLOW" });
new keyform.Wallet("w", { accounts: [{ curve: "CURVE_ED25519", path: "m/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }] });
new keyform.ApiKey("k", { userId: "u", apiKeyName: "k", expirationSeconds: 3600, curveType: pulumi.output("API_KEY_CURVE_ED25519" as const) });
new keyform.UserTag("t");
const effect: pulumi.Output<"EFFECT_ALLOW" | "EFFECT_DENY"> = new keyform.Policy("q", { policyName: "q", effect: "EFFECT_DENY" }).effect;
void effect;

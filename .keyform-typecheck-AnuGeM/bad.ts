import * as pulumi from "@pulumi/pulumi";
import * as keyform from "../sdk";
void pulumi;
new keyform.Policy("p", { policyName: "p", effect: "EFFECT_ALOW" });
new keyform.Wallet("w", { accounts: [{ curve: "CURVE_P256", path: "m/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
new keyform.Invitation("i", { receiverUserName: "a", receiverUserEmail: "a@b.c", accessType: "ACCESS_TYPE_WEB" });

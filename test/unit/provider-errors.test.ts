/**
 * Errors are classified by their class, never by their text: a key the stamper refuses is an
 * InvalidApiKeyError naming the setting (and `explain` says which settings to check), while a
 * TypeError that merely mentions a key setting is not taken for one. A failure that leaves an
 * object behind is one typed error, which the provider plugin turns into Pulumi's
 * ErrorResourceInitFailed with the object's id, properties and reasons.
 */
import * as anyproto from "google-protobuf/google/protobuf/any_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { InvalidApiKeyError } from "../../sdk/client/errors";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { explain, ObjectLeftBehindError, ProviderError } from "../../sdk/resources/runtime/errors";
import { toServiceError } from "../../sdk/plugin/server";
import { decode } from "../../sdk/plugin/values";

describe("InvalidApiKeyError", () => {
  it("names the setting at fault and never holds the private key", () => {
    const pair = generateApiKeyPair();
    const other = generateApiKeyPair();
    const refusal = (options: { apiPublicKey: string; apiPrivateKey: string }) => {
      try {
        new ApiKeyStamper(options);
      } catch (error) {
        return error;
      }
      throw new Error("the stamper accepted the key");
    };
    const malformed = refusal({ apiPublicKey: pair.publicKey, apiPrivateKey: "zz" + pair.privateKey.slice(2) });
    expect(malformed).toBeInstanceOf(InvalidApiKeyError);
    expect(malformed).toBeInstanceOf(TypeError);
    expect((malformed as InvalidApiKeyError).field).toBe("apiPrivateKey");
    const mismatched = refusal({ apiPublicKey: other.publicKey, apiPrivateKey: pair.privateKey });
    expect((mismatched as InvalidApiKeyError).field).toBe("apiPublicKey");
    expect((mismatched as Error).message).not.toContain(pair.privateKey);
    expect(refusal({ apiPublicKey: "not hex", apiPrivateKey: pair.privateKey })).toBeInstanceOf(InvalidApiKeyError);
  });

  it("is what explain takes for wrong key settings; a TypeError's text is not", () => {
    const keyError = explain(new InvalidApiKeyError("apiPublicKey must be a hex string", "apiPublicKey"), 'Policy "p": create');
    expect(keyError.message).toMatch(/^Policy "p": create: the API key settings are wrong: apiPublicKey must be a hex string\. Check /);
    const lookalike = explain(new TypeError("cannot read apiPublicKey of undefined"), 'Policy "p": create');
    expect(lookalike.message).toBe('Policy "p": create: cannot read apiPublicKey of undefined');
  });
});

describe("ObjectLeftBehindError", () => {
  it("is a ProviderError that explain passes through as is", () => {
    const left = new ObjectLeftBehindError('Wallet "w": create: read back failed', "wallet-1", { walletId: "wallet-1", walletName: "w" });
    expect(left).toBeInstanceOf(ProviderError);
    expect(left.reasons).toEqual([left.message]);
    expect(explain(left, "anything")).toBe(left);
  });

  it("becomes ErrorResourceInitFailed in the plugin, with the id, properties and reasons; other errors do not", () => {
    const left = new ObjectLeftBehindError('Wallet "w": create: read back failed', "wallet-1", { walletId: "wallet-1", walletName: "w" });
    const served = toServiceError(left);
    expect(served.message).toBe(left.message);
    const [bin] = served.metadata!.get("grpc-status-details-bin") as Buffer[];
    const status = statusproto.Status.deserializeBinary(new Uint8Array(bin!));
    const packed = status.getDetailsList()[0] as anyproto.Any;
    expect(packed.getTypeName()).toBe("pulumirpc.ErrorResourceInitFailed");
    const detail = provproto.ErrorResourceInitFailed.deserializeBinary(packed.getValue_asU8());
    expect(detail.getId()).toBe("wallet-1");
    expect(decode(detail.getProperties()).values).toEqual({ walletId: "wallet-1", walletName: "w" });
    expect(detail.getReasonsList()).toEqual([left.message]);

    // An Error that merely carries an `id` field is not taken for one that left an object behind.
    const lookalike = Object.assign(new Error("boom"), { id: "x" });
    expect(toServiceError(lookalike).metadata!.get("grpc-status-details-bin")).toEqual([]);
  });
});

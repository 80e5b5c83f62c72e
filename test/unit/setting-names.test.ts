import { describe, expect, it } from "vitest";
import { SETTING_NAMES, suggestSetting, unknownSettingProblem } from "../../sdk/resources/runtime/settings";
import { unknownKeysError } from "../../sdk/resources/runtime/verify";

describe("unknown keyform:* config keys", () => {
  it("every defined setting is known, in both config forms", () => {
    for (const name of SETTING_NAMES) {
      expect(unknownSettingProblem(`keyform:${name}`)).toBeUndefined();
      expect(unknownSettingProblem(`keyform:config:${name}`)).toBeUndefined();
    }
    // Other namespaces are not keyform's business.
    expect(unknownSettingProblem("aws:region")).toBeUndefined();
  });

  it("suggests the setting a mistyped key meant", () => {
    expect(suggestSetting("baseurl")).toBe("baseUrl");
    expect(suggestSetting("base_url")).toBe("baseUrl");
    expect(suggestSetting("organisationId")).toBe("organizationId");
    expect(suggestSetting("apiPrivKey")).toBeUndefined();
    expect(unknownSettingProblem("keyform:timeoutMS")).toBe("keyform:timeoutMS is not a keyform setting; did you mean keyform:timeoutMs?");
    expect(unknownSettingProblem("keyform:region")).toMatch(/^keyform:region is not a keyform setting; the settings are keyform:baseUrl, /);
  });

  it("the run's check names every unknown key at once", () => {
    const error = unknownKeysError(["keyform:baseUrl", "keyform:baseurl", "project:name", "keyform:organisationId"]);
    expect(error?.message).toBe(
      "keyform: the stack config is wrong: keyform:baseurl is not a keyform setting; did you mean keyform:baseUrl?; " +
        "keyform:organisationId is not a keyform setting; did you mean keyform:organizationId?",
    );
    expect(unknownKeysError(["keyform:baseUrl"])).toBeUndefined();
  });
});

/**
 * @module emulator/handlers/auth-module
 * The authentication area of the emulator: sign-up and OTP login at the auth proxy, the
 * `otp_auth` activity, and the tables behind WebAuthn stamps and App Proofs (see the
 * `auth-*.ts` files next to this one).
 */
import { AUTH_MIGRATIONS } from "../store/auth-store";
import { otpAuth, otpInit, otpLoginV2, otpVerify } from "./auth-otp";
import { signupV2 } from "./auth-signup";
import type { EmulatorModule } from "./types";

export const authModule: EmulatorModule = {
  name: "auth",
  migrations: AUTH_MIGRATIONS,
  setup: () => ({ signupV2, otpInit, otpVerify, otpLoginV2, otpAuth }),
};

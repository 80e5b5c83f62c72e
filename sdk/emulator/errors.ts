/**
 * @module emulator/errors
 * Errors the emulator answers with. The body is the gRPC-gateway `rpcStatus`
 * `{code, message, details: []}` (docs/service-facts.md#5-errors) and the HTTP status follows the gateway's
 * mapping of the gRPC code.
 */

/** gRPC status codes the emulator uses. */
export const GrpcCode = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

const HTTP_STATUS: Record<number, number> = {
  3: 400,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  12: 501,
  13: 500,
  16: 401,
};

/** HTTP status for a gRPC code, per the gRPC-gateway mapping (unknown codes → 500). */
export function httpStatusForCode(code: number): number {
  return HTTP_STATUS[code] ?? 500;
}

/**
 * A failure the emulator reports to the caller. Thrown anywhere inside a request (a handler,
 * authentication, validation); thrown inside an activity's transaction it also rolls the
 * transaction back, so nothing of the activity is kept.
 */
export class EmulatorError extends Error {
  /** HTTP status sent (derived from `code` unless overridden, e.g. 413). */
  readonly status: number;

  constructor(
    /** gRPC status code of the body. */
    readonly code: GrpcCode,
    message: string,
    status?: number,
  ) {
    super(message);
    this.name = "EmulatorError";
    this.status = status ?? httpStatusForCode(code);
  }

  /** The JSON body sent for this error. */
  toBody(): { code: number; message: string; details: unknown[] } {
    return { code: this.code, message: this.message, details: [] };
  }
}

/** 400 code 3: an argument is invalid; the message names the field. */
export function invalidArgument(message: string): EmulatorError {
  return new EmulatorError(GrpcCode.INVALID_ARGUMENT, message);
}

/** 404 code 5: the named object does not exist. */
export function notFound(message: string): EmulatorError {
  return new EmulatorError(GrpcCode.NOT_FOUND, message);
}

/** 409 code 6: an object with that unique name or key already exists. */
export function alreadyExists(message: string): EmulatorError {
  return new EmulatorError(GrpcCode.ALREADY_EXISTS, message);
}

/** 403 code 7. */
export function permissionDenied(message: string): EmulatorError {
  return new EmulatorError(GrpcCode.PERMISSION_DENIED, message);
}

/** 400 code 9: the object is not in a state that allows the operation. */
export function failedPrecondition(message: string): EmulatorError {
  return new EmulatorError(GrpcCode.FAILED_PRECONDITION, message);
}

/** 401 code 16. */
export function unauthenticated(message: string): EmulatorError {
  return new EmulatorError(GrpcCode.UNAUTHENTICATED, message);
}

/** 501 code 12: a known operation the emulator does not serve yet. */
export function notImplemented(operation: string): EmulatorError {
  return new EmulatorError(GrpcCode.UNIMPLEMENTED, `not implemented by the emulator yet: ${operation}`);
}

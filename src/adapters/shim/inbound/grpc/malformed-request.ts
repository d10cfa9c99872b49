import { ServiceDefinition } from '@grpc/grpc-js';

/**
 * A request whose bytes did not decode. grpc-js would answer INTERNAL; malformed
 * input is INVALID_ARGUMENT (docs/shim-contract.md, "Transport"), so decoding never
 * throws and the handler adapter answers with that instead.
 */
export class MalformedRequest {
  constructor(
    readonly method: string,
    readonly reason: string,
  ) {}
}

/** `definition` with request decoding that returns MalformedRequest instead of throwing. */
export function tolerantDefinition(definition: ServiceDefinition): ServiceDefinition {
  const methods = Object.entries(definition).map(([name, method]) => [
    name,
    {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return method.requestDeserialize(bytes);
        } catch (err) {
          return new MalformedRequest(name, err instanceof Error ? err.message : String(err));
        }
      },
    },
  ]);
  return Object.fromEntries(methods) as ServiceDefinition;
}

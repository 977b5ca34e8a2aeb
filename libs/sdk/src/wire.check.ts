// Compiled with the monorepo (npm run build, the typecheck), never packed: the SDK's generated
// wire types must say exactly what the contracts say, op by op, or the build fails here.
import type { OpName as ContractOpName, OpRequest, OpResponse } from '@loom/contracts';
import type { OpName, OpRequests, OpResponses } from './wire.generated';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Mismatched<T> = { [K in keyof T]: T[K] extends true ? never : K }[keyof T];

/** Ops whose request or answer differs between the contracts and the SDK: never, else the build names them. */
type RequestMismatches = Mismatched<{ [O in ContractOpName]: O extends OpName ? Same<OpRequest<O>, OpRequests[O]> : false }>;
type ResponseMismatches = Mismatched<{ [O in ContractOpName]: O extends OpName ? Same<OpResponse<O>, OpResponses[O]> : false }>;

// On a mismatch the compiler's error names the ops ("'none' is not assignable to 'conversation.append'").
export const opsAgree: Same<ContractOpName, OpName> = true;
export const requestMismatches: [RequestMismatches] extends [never] ? 'none' : RequestMismatches = 'none';
export const responseMismatches: [ResponseMismatches] extends [never] ? 'none' : ResponseMismatches = 'none';

import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, MaxLength } from 'class-validator';
import { Limits } from '../limits';

/** Request of `loom.embed.batch.v1`. Texts are already cut to the embed window by the caller. */
export class EmbedBatchRequest {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(256)
  @IsString({ each: true })
  @MaxLength(Limits.embedChars * 4, { each: true })
  texts!: string[];

  static readonly example: EmbedBatchRequest = Object.assign(new EmbedBatchRequest(), {
    texts: ['We moved invoices to the new ledger.'],
  });
}

export interface EmbedBatchResponse {
  model: string;
  dims: number;
  vectors: number[][];
}

/** An embedder answers errors in-band so the caller can tell "provider failed" from "no embedder". */
export interface EmbedBatchFailure {
  error: { code: 'provider_failed' | 'invalid_input'; message: string; retryable: boolean };
}

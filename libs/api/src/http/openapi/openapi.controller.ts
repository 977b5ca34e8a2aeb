import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildOpenApiDocument, OpenApiPaths, type OpenApiDocument } from '@loom/contracts';
import { renderReferencePage, type ReferencePage } from './reference-page';

/**
 * The API's description: the OpenAPI 3.1 document and its reference page. Both are public (no
 * token): they describe the API, never any data in it. Built from the contracts alone, on the
 * first request: a document that cannot be built (generated schemas older than the ops) fails
 * these two routes, never the gateway's start.
 */
@Controller()
export class OpenApiController {
  private built: { document: string; page: ReferencePage } | undefined;

  @Get(OpenApiPaths.document)
  async openapi(@Res() reply: FastifyReply): Promise<void> {
    const built = await this.build(reply);
    if (!built) return;
    await reply.status(200).header('content-type', 'application/json; charset=utf-8').header('x-content-type-options', 'nosniff').send(built.document);
  }

  @Get(OpenApiPaths.reference)
  async reference(@Res() reply: FastifyReply): Promise<void> {
    const built = await this.build(reply);
    if (!built) return;
    await reply
      .status(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', built.page.contentSecurityPolicy)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(built.page.html);
  }

  /** The document and page, built once; on failure a 500 in the one error shape, and undefined. */
  private async build(reply: FastifyReply): Promise<{ document: string; page: ReferencePage } | undefined> {
    try {
      if (!this.built) {
        const document = JSON.stringify(buildOpenApiDocument({ version: loomVersion() }));
        this.built = { document, page: renderReferencePage(JSON.parse(document) as OpenApiDocument) };
      }
      return this.built;
    } catch (error) {
      const message = `the OpenAPI document could not be built: ${error instanceof Error ? error.message : String(error)}`;
      await reply.status(500).header('content-type', 'application/json').send(JSON.stringify({ error: { code: 'internal', message } }));
      return undefined;
    }
  }
}

/** The version in Loom's package.json above this file (src in tests, dist once built). */
function loomVersion(): string {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (manifest.name === 'loom' && manifest.version) return manifest.version;
  }
  return '0.0.0-unknown';
}

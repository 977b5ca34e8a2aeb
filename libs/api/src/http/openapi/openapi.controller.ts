import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildOpenApiDocument, OpenApiPaths } from '@loom/contracts';
import { renderReferencePage } from './reference-page';

/**
 * The API's description: the OpenAPI 3.1 document and its reference page. Both are public (no
 * token): they describe the API, never any data in it. Built once, from the contracts alone.
 */
@Controller()
export class OpenApiController {
  private readonly document = JSON.stringify(buildOpenApiDocument({ version: loomVersion() }));
  private readonly page = renderReferencePage(JSON.parse(this.document) as ReturnType<typeof buildOpenApiDocument>);

  @Get(OpenApiPaths.document)
  async openapi(@Res() reply: FastifyReply): Promise<void> {
    await reply.status(200).header('content-type', 'application/json; charset=utf-8').header('x-content-type-options', 'nosniff').send(this.document);
  }

  @Get(OpenApiPaths.reference)
  async reference(@Res() reply: FastifyReply): Promise<void> {
    await reply
      .status(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', this.page.contentSecurityPolicy)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(this.page.html);
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

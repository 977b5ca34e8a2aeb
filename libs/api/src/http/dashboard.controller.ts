import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ASSETS = join(__dirname, 'dashboard');
const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
};
// Read once: three small files that never change while the process runs.
const files = new Map(Object.keys(TYPES).map((name) => [name, readFileSync(join(ASSETS, name))]));

/**
 * The dashboard: static pages that call the public ops API with the token the person pastes.
 * Strict headers: no inline script, no framing, nothing loaded from elsewhere.
 */
@Controller()
export class DashboardController {
  @Get('/dashboard')
  async page(@Res() reply: FastifyReply): Promise<void> {
    await this.send(reply, 'index.html');
  }

  @Get('/dashboard/:file')
  async asset(@Param('file') file: string, @Res() reply: FastifyReply): Promise<void> {
    await this.send(reply, file);
  }

  private async send(reply: FastifyReply, name: string): Promise<void> {
    const body = files.get(name);
    if (!body) {
      await reply.status(404).header('content-type', 'application/json').send(JSON.stringify({ error: { code: 'not_found', message: `no dashboard file "${name}"` } }));
      return;
    }
    await reply
      .status(200)
      .header('content-type', TYPES[name]!)
      .header('content-security-policy', "default-src 'self'; script-src 'self'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(body);
  }
}

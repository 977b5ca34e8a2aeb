import { Controller, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { McpEndpoint } from '../mcp/mcp-endpoint';
import { MCP_ENDPOINT } from './tokens';

/** `POST /mcp` (`?toolset=all` for the full listing, `?namespace=` to pick one). */
@Controller()
export class McpController {
  constructor(@Inject(MCP_ENDPOINT) private readonly mcp: McpEndpoint) {}

  @Post('/mcp')
  async post(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const query = req.query as Record<string, string | undefined>;
    const session = req.headers['mcp-session-id'];
    const raw = typeof req.body === 'string' ? req.body : JSON.stringify(req.body ?? {});
    const answer = await this.mcp.handle(raw, {
      authorization: req.headers.authorization,
      sessionId: typeof session === 'string' ? session : undefined,
      toolset: query['toolset'],
      namespace: query['namespace'],
    });
    for (const [k, v] of Object.entries(answer.headers)) void reply.header(k, v);
    if (answer.body === undefined) {
      await reply.status(answer.status).send();
      return;
    }
    await reply.status(answer.status).header('content-type', 'application/json').send(JSON.stringify(answer.body));
  }
}

import { Controller, Delete, Get, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { McpEndpoint } from '../mcp/mcp-endpoint';
import { MCP_ENDPOINT } from './tokens';

/**
 * `/mcp`, Streamable HTTP: POST messages, GET the server's event stream, DELETE ends the session
 * (`?toolset=all` for the full listing, `?namespace=` to pick one). The SDK's transport writes the
 * raw response, so Fastify lets go of it.
 */
@Controller()
export class McpController {
  constructor(@Inject(MCP_ENDPOINT) private readonly mcp: McpEndpoint) {}

  @Post('/mcp')
  post(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.handle(req, reply);
  }

  @Get('/mcp')
  stream(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.handle(req, reply);
  }

  @Delete('/mcp')
  end(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.handle(req, reply);
  }

  private async handle(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const query = req.query as Record<string, string | undefined>;
    const body = req.method !== 'POST' ? undefined : typeof req.body === 'string' ? req.body : req.body === undefined || req.body === null ? '' : JSON.stringify(req.body);
    reply.hijack();
    await this.mcp.handle(req.raw, reply.raw, { body, toolset: query['toolset'], namespace: query['namespace'] });
  }
}

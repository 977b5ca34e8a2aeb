import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { HttpErrorFilter } from './http/not-found.filter';
import { OpsController } from './http/ops.controller';
import { DashboardController } from './http/dashboard.controller';
import { McpController } from './http/mcp.controller';
import { OpenApiController } from './http/openapi/openapi.controller';
import { LOOM_METRICS, MCP_ENDPOINT, OP_DISPATCHER, READINESS } from './http/tokens';
import type { GatewayRuntime } from './runtime';

/** The gateway's composition root: the runtime's services behind the HTTP controller. */
@Module({})
export class GatewayModule {
  static forRoot(runtime: GatewayRuntime): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [OpsController, DashboardController, McpController, OpenApiController],
      providers: [
        { provide: OP_DISPATCHER, useValue: runtime.dispatcher },
        { provide: READINESS, useValue: runtime.readiness },
        { provide: LOOM_METRICS, useValue: runtime.metrics },
        { provide: MCP_ENDPOINT, useValue: runtime.mcp },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
      ],
    };
  }
}

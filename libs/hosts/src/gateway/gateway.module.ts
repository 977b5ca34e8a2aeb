import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { DashboardController, HttpErrorFilter, LOOM_METRICS, MCP_ENDPOINT, McpController, OP_DISPATCHER, OpenApiController, OpsController, READINESS } from '@loom/api';
import type { GatewayRuntime } from './gateway.runtime';

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

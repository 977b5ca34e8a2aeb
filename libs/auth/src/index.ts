export * from './principal';
export * from './token.repository';
export * from './auth.service';

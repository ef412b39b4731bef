// Moved to src/http/html.ts so the payments pages share it; kept here for web's imports.
export * from '../../http/html.js';

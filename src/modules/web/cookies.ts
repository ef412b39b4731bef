// Moved to src/http/cookies.ts so the payments pages share it; kept here for web's imports.
export * from '../../http/cookies.js';

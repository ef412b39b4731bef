// Public surface of the add-ons module.
export { createAddOnsService } from './service.js';
export type { AddOnsService, AddOnView } from './service.js';
export { addOnRoutes } from './routes.js';

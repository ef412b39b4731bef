export { createWebModule } from './module.js';

export { createEmailsModule } from './module.js';
export { SEND_EMAIL_TASK, EMAIL_MAX_ATTEMPTS } from './service.js';
export type { EmailService, EmailPorts } from './service.js';
export { sqlEmailPorts } from './ports.js';
export { deleteEmailsOfCustomers } from './repository.js';

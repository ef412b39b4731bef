// What other modules may use from custom-properties: the port's type (the composition root hands
// them the port itself) and the wire schemas of `custom_properties`.
export { createCustomPropertiesModule } from './module.js';
export type { CustomPropertiesPort, CustomPropertiesService } from './service.js';
export type { CustomPropertyEntity, CustomPropertyValue, CustomPropertyValues } from './values.js';
export { CustomPropertiesInput, CustomPropertiesOutput, customPropertyFilterQuery, FILTER_HELP } from './schemas.js';
export { defaultValuesSql } from './repository.js';

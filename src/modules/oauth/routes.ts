import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { badRequest } from '../../kernel/errors.js';
import { errorResponses, listResponse, PageQuery } from '../../http/schemas.js';
import type { OAuthAppsService } from './apps-service.js';
import type { AccountStatus, AccountType, ConnectService } from './connect-service.js';
import {
  AccountStatusSchema,
  AccountTypeSchema,
  accountToWire,
  appToWire,
  appWithSecretToWire,
  ConnectedAccount,
  CreatedExpressAccount,
  CreateExpressAccountRequest,
  CreateOAuthAppRequest,
  linkToWire,
  OAuthApp,
  OAuthAppWithSecret,
  OnboardingLinkSchema,
  UpdateOAuthAppRequest,
} from './schemas.js';

const AppParams = Type.Object({ app_id: Type.String({ description: 'OAuth app id (= client_id)' }) });
const AccountParams = Type.Object({ connected_account_id: Type.String({ description: 'Connected account id (`cacc_...`)' }) });

export function oauthAppRoutes(service: OAuthAppsService) {
  return (app: App) => {
    const tags = ['OAuth apps'];
    app.post('/api/v1/oauth/apps', {
      schema: { tags, operationId: 'create_oauth_app', body: CreateOAuthAppRequest, response: { 201: OAuthAppWithSecret, ...errorResponses([400, 401]) } },
    }, async (request, reply) => reply.status(201).send(appWithSecretToWire(await service.create(authOf(request).tenantId, request.body))));

    app.get('/api/v1/oauth/apps', {
      schema: { tags, operationId: 'list_oauth_apps', querystring: Type.Object({ ...PageQuery }), response: { 200: listResponse(OAuthApp), ...errorResponses([400, 401]) } },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(appToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/oauth/apps/:app_id', {
      schema: { tags, operationId: 'get_oauth_app', params: AppParams, response: { 200: OAuthApp, ...errorResponses([401, 404]) } },
    }, async (request) => appToWire(await service.get(authOf(request).tenantId, request.params.app_id)));

    app.patch('/api/v1/oauth/apps/:app_id', {
      schema: { tags, operationId: 'update_oauth_app', params: AppParams, body: UpdateOAuthAppRequest, response: { 200: OAuthApp, ...errorResponses([400, 401, 404]) } },
    }, async (request) => appToWire(await service.update(authOf(request).tenantId, request.params.app_id, request.body)));

    app.delete('/api/v1/oauth/apps/:app_id', {
      schema: { tags, operationId: 'delete_oauth_app', description: 'Deletes the app and disconnects every organization connected through it.', params: AppParams, response: { 204: Type.Null(), ...errorResponses([401, 404]) } },
    }, async (request, reply) => {
      await service.remove(authOf(request).tenantId, request.params.app_id);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/oauth/apps/:app_id/rotate-secret', {
      schema: { tags, operationId: 'rotate_oauth_app_secret', description: 'Issues a new client secret; the old one stops working immediately.', params: AppParams, response: { 200: OAuthAppWithSecret, ...errorResponses([401, 404]) } },
    }, async (request) => appWithSecretToWire(await service.rotateSecret(authOf(request).tenantId, request.params.app_id)));
  };
}

export function connectedAccountRoutes(service: ConnectService) {
  return (app: App) => {
    const tags = ['Connected accounts'];
    app.get('/api/v1/connected-accounts', {
      schema: {
        tags,
        operationId: 'list_connected_accounts',
        querystring: Type.Object({ type: Type.Optional(AccountTypeSchema), status: Type.Optional(AccountStatusSchema), ...PageQuery }),
        response: { 200: listResponse(ConnectedAccount), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const query = request.query as { type?: AccountType; status?: AccountStatus; page?: number; per_page?: number };
      const page = await service.list(authOf(request).tenantId, query);
      return { data: page.data.map(accountToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/connected-accounts', {
      schema: { tags, operationId: 'create_express_account', body: CreateExpressAccountRequest, response: { 201: CreatedExpressAccount, ...errorResponses([400, 401]) } },
    }, async (request, reply) => {
      const { account, link } = await service.createExpress(authOf(request).tenantId, request.body, `${request.protocol}://${request.host}`);
      return reply.status(201).send({ ...accountToWire(account), onboarding_link: linkToWire(link) });
    });

    app.get('/api/v1/connected-accounts/:connected_account_id', {
      schema: { tags, operationId: 'get_connected_account', params: AccountParams, response: { 200: ConnectedAccount, ...errorResponses([401, 404]) } },
    }, async (request) => accountToWire(await service.get(authOf(request).tenantId, request.params.connected_account_id)));

    app.post('/api/v1/connected-accounts/:connected_account_id/onboarding-links', {
      // The body is optional, which a body schema cannot say, so it is checked here.
      schema: { tags, operationId: 'create_onboarding_link', description: 'Optional JSON body `{return_url}`; defaults to the return_url given at creation. Older unused links stop working.', params: AccountParams, response: { 201: OnboardingLinkSchema, ...errorResponses([400, 401, 404, 409]) } },
    }, async (request, reply) => {
      const body = request.body ?? {};
      if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('body must be a JSON object');
      const link = await service.createOnboardingLink(authOf(request).tenantId, request.params.connected_account_id, body as { return_url?: string }, `${request.protocol}://${request.host}`);
      return reply.status(201).send(linkToWire(link));
    });

    const action = (path: string, operationId: string, description: string, run: (tenantId: string, id: string) => ReturnType<ConnectService['get']>) =>
      app.post(`/api/v1/connected-accounts/:connected_account_id/${path}`, {
        schema: { tags, operationId, description, params: AccountParams, response: { 200: ConnectedAccount, ...errorResponses([401, 404, 409]) } },
      }, async (request) => accountToWire(await run(authOf(request).tenantId, request.params.connected_account_id)));

    action('disconnect', 'disconnect_connected_account', 'Revokes the connection and every token issued for it, at once. Idempotent.', service.disconnect);
    action('suspend', 'suspend_connected_account', 'Express accounts: API calls made for the account are refused until it is reactivated.', service.suspend);
    action('reactivate', 'reactivate_connected_account', 'Express accounts: lifts a suspension.', service.reactivate);
  };
}

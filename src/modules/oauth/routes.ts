import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import { authOf } from '../../http/auth.js';
import { documented, errorResponses, listResponse, Nullable, PageQuery } from '../../http/schemas.js';
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
import * as ex from './examples.js';

const AppParams = Type.Object({ app_id: Type.String({ description: 'OAuth app id (= client_id)', examples: [ex.APP_ID] }) });
const AccountParams = Type.Object({ connected_account_id: Type.String({ description: 'Connected account id (`cacc_...`)', examples: [ex.ACCOUNT_ID] }) });

/** What create and update check. */
const APP_RULES =
  '`name`: 1 to 200 characters, shown to merchants on the consent screen. `redirect_uris`: 1 to 10 distinct absolute URLs, matched exactly at authorization time ' +
  '(no wildcard, no prefix match); https only, except http on localhost, 127.0.0.1 and [::1]; no fragment, no user:password. A bad value is a 400 naming it.';
/** The statuses of a connected account, said by the operations that show or move one. */
const ACCOUNT_STATUSES =
  'Statuses: PENDING (express, onboarding not finished), ACTIVE (standard: consent given; express: onboarded), SUSPENDED (express, set by the platform), ' +
  'REVOKED (disconnected; final, tokens revoked, billing data kept).';

export function oauthAppRoutes(service: OAuthAppsService) {
  return (app: App) => {
    const tags = ['OAuth apps'];
    app.post('/api/v1/oauth/apps', {
      schema: {
        tags,
        operationId: 'create_oauth_app',
        summary: 'Register an OAuth app',
        description:
          'Registers an app through which merchants grant this platform access to their organization (authorization code with PKCE). The `client_id` is the app id; ' +
          'the `client_secret` is shown only in this answer (only its hash is stored). ' + APP_RULES,
        body: documented(CreateOAuthAppRequest, 'The app name and its redirect URIs', ex.createAppExample),
        response: { 201: documented(OAuthAppWithSecret, 'The app with its client secret (shown once)', ex.appWithSecretExample), ...errorResponses([400, 401, 409]) },
      },
    }, async (request, reply) => reply.status(201).send(appWithSecretToWire(await service.create(authOf(request).tenantId, request.body))));

    app.get('/api/v1/oauth/apps', {
      schema: {
        tags,
        operationId: 'list_oauth_apps',
        summary: 'List OAuth apps',
        description: 'The tenant\'s OAuth apps, newest first, with a hint of each client secret (never the secret). Paged with `page` (0-based) and `per_page` (1-100, default 10).',
        querystring: Type.Object({ ...PageQuery }),
        response: { 200: documented(listResponse(OAuthApp), 'One page of apps', { data: [ex.appExample], pagination_meta: { page: 0, per_page: 10, total_items: 1, total_pages: 1 } }), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const page = await service.list(authOf(request).tenantId, request.query);
      return { data: page.data.map(appToWire), pagination_meta: page.pagination_meta };
    });

    app.get('/api/v1/oauth/apps/:app_id', {
      schema: {
        tags,
        operationId: 'get_oauth_app',
        summary: 'Get an OAuth app',
        description: 'One app, with `client_secret_hint` only. An app of another tenant, or a deleted one, is a 404.',
        params: AppParams,
        response: { 200: documented(OAuthApp, 'The app', ex.appExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => appToWire(await service.get(authOf(request).tenantId, request.params.app_id)));

    app.patch('/api/v1/oauth/apps/:app_id', {
      schema: {
        tags,
        operationId: 'update_oauth_app',
        summary: 'Update an OAuth app',
        description: 'Changes the name and/or replaces the whole list of redirect URIs; fields left out keep their value. ' + APP_RULES,
        params: AppParams,
        body: documented(UpdateOAuthAppRequest, 'The fields to change', ex.updateAppExample),
        response: { 200: documented(OAuthApp, 'The updated app', ex.updatedAppExample), ...errorResponses([400, 401, 404]) },
      },
    }, async (request) => appToWire(await service.update(authOf(request).tenantId, request.params.app_id, request.body)));

    app.delete('/api/v1/oauth/apps/:app_id', {
      schema: {
        tags,
        operationId: 'delete_oauth_app',
        summary: 'Delete an OAuth app',
        description:
          'Deletes the app and disconnects every organization connected through it: their connected accounts become REVOKED and every token issued through the app stops ' +
          'working at once. An unknown or already deleted app is a 404.',
        params: AppParams,
        response: { 204: Type.Null({ description: 'Deleted; no body' }), ...errorResponses([401, 404]) },
      },
    }, async (request, reply) => {
      await service.remove(authOf(request).tenantId, request.params.app_id);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/oauth/apps/:app_id/rotate-secret', {
      schema: {
        tags,
        operationId: 'rotate_oauth_app_secret',
        summary: 'Rotate the client secret of an OAuth app',
        description:
          'Issues a new client secret, shown only in this answer; the old one stops working immediately (token requests with it get `invalid_client`). ' +
          'Tokens already issued keep working. An unknown app is a 404.',
        params: AppParams,
        response: { 200: documented(OAuthAppWithSecret, 'The app with its new client secret (shown once)', ex.rotatedAppExample), ...errorResponses([401, 404]) },
      },
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
        summary: 'List connected accounts',
        description:
          'The merchants this platform acts for, newest first: standard accounts (connected through one of its OAuth apps) and express accounts (created by it). ' +
          'Filters: `type`, `status`. Paged with `page` (0-based) and `per_page` (1-100, default 10). ' + ACCOUNT_STATUSES,
        querystring: Type.Object({ type: Type.Optional(AccountTypeSchema), status: Type.Optional(AccountStatusSchema), ...PageQuery }),
        response: { 200: documented(listResponse(ConnectedAccount), 'One page of connected accounts', ex.accountListExample), ...errorResponses([400, 401]) },
      },
    }, async (request) => {
      const query = request.query as { type?: AccountType; status?: AccountStatus; page?: number; per_page?: number };
      const page = await service.list(authOf(request).tenantId, query);
      return { data: page.data.map(accountToWire), pagination_meta: page.pagination_meta };
    });

    app.post('/api/v1/connected-accounts', {
      schema: {
        tags,
        operationId: 'create_express_account',
        summary: 'Create an express connected account',
        description:
          'Creates a PENDING express account and its first onboarding link (single use, valid 7 days): send the merchant there to sign in or sign up and enter their ' +
          'business details; the account then becomes ACTIVE with its own organization and production tenant, and the browser returns to `return_url?connected_account_id=...`. ' +
          'Act for it with this platform\'s API key plus the header `x-connected-account`. Refused with a 400 naming the field: an invalid `email`, an `organization_name` ' +
          'not 1-200 characters, a `country` that is not upper-case ISO 3166-1 alpha-2, `metadata` over 50 keys or with a non-string value, a `return_url` that is not https ' +
          '(http only on loopback). ' + ACCOUNT_STATUSES,
        body: documented(CreateExpressAccountRequest, 'Who is invited, and where they return after onboarding', ex.createExpressExample),
        response: { 201: documented(CreatedExpressAccount, 'The PENDING account with its onboarding link', ex.createdExpressExample), ...errorResponses([400, 401, 409]) },
      },
    }, async (request, reply) => {
      const { account, link } = await service.createExpress(authOf(request).tenantId, request.body, `${request.protocol}://${request.host}`);
      return reply.status(201).send({ ...accountToWire(account), onboarding_link: linkToWire(link) });
    });

    app.get('/api/v1/connected-accounts/:connected_account_id', {
      schema: {
        tags,
        operationId: 'get_connected_account',
        summary: 'Get a connected account',
        description: 'One connected account of this platform; another platform\'s account is a 404. ' + ACCOUNT_STATUSES,
        params: AccountParams,
        response: { 200: documented(ConnectedAccount, 'The connected account', ex.activeAccountExample), ...errorResponses([401, 404]) },
      },
    }, async (request) => accountToWire(await service.get(authOf(request).tenantId, request.params.connected_account_id)));

    app.post('/api/v1/connected-accounts/:connected_account_id/onboarding-links', {
      schema: {
        tags,
        operationId: 'create_onboarding_link',
        summary: 'Create a new onboarding link',
        description:
          'A new single-use onboarding link (valid 7 days) for a PENDING express account; earlier unused links stop working. The body is optional: `return_url` ' +
          'defaults to the one given at creation. A standard account, or an account that is not PENDING, is a 409; a `return_url` that is not https (http only on loopback) is a 400.',
        params: AccountParams,
        body: documented(
          Type.Object({ return_url: Type.Optional(Nullable(Type.String({ description: 'Where the merchant returns after onboarding; default the one given at creation' }))) }),
          'Optional: where the merchant returns after onboarding',
          { return_url: 'https://platform.example.com/express/done' },
        ),
        response: { 201: documented(OnboardingLinkSchema, 'The new link; send the merchant there', ex.onboardingLinkExample), ...errorResponses([400, 401, 404, 409]) },
      },
      // The body is optional: a POST without one keeps the return_url given at creation. (The
      // service also takes a null return_url as "keep it", hence the cast below.)
      preValidation: async (request) => {
        request.body ??= {};
      },
    }, async (request, reply) => {
      const link = await service.createOnboardingLink(authOf(request).tenantId, request.params.connected_account_id, request.body as { return_url?: string }, `${request.protocol}://${request.host}`);
      return reply.status(201).send(linkToWire(link));
    });

    interface Action {
      path: string;
      operationId: string;
      summary: string;
      description: string;
      /** The account as the action leaves it. */
      example: typeof ex.activeAccountExample;
      run: (tenantId: string, id: string) => ReturnType<ConnectService['get']>;
    }
    const action = ({ path, operationId, summary, description, example, run }: Action) =>
      app.post(`/api/v1/connected-accounts/:connected_account_id/${path}`, {
        schema: {
          tags,
          operationId,
          summary,
          description: `${description} ${ACCOUNT_STATUSES}`,
          params: AccountParams,
          response: { 200: documented(ConnectedAccount, 'The connected account after the change', example), ...errorResponses([401, 404, 409]) },
        },
      }, async (request) => accountToWire(await run(authOf(request).tenantId, request.params.connected_account_id)));

    action({
      path: 'disconnect',
      operationId: 'disconnect_connected_account',
      summary: 'Disconnect a connected account',
      description:
        'Revokes the connection (REVOKED, final) and, in the same transaction, every token issued for it and every unused onboarding link. The merchant\'s billing data is kept. ' +
        'Idempotent: a REVOKED account is answered unchanged.',
      example: ex.revokedAccountExample,
      run: service.disconnect,
    });
    action({
      path: 'suspend',
      operationId: 'suspend_connected_account',
      summary: 'Suspend an express connected account',
      description:
        'Express accounts only: ACTIVE -> SUSPENDED; calls made for the account (`x-connected-account`) answer 403 until it is reactivated. A standard account, or one that ' +
        'is not ACTIVE, is a 409; a SUSPENDED one is answered unchanged.',
      example: ex.suspendedAccountExample,
      run: service.suspend,
    });
    action({
      path: 'reactivate',
      operationId: 'reactivate_connected_account',
      summary: 'Reactivate a suspended express connected account',
      description: 'Express accounts only: SUSPENDED -> ACTIVE. A standard account, or one that is not SUSPENDED, is a 409; an ACTIVE one is answered unchanged.',
      example: ex.activeAccountExample,
      run: service.reactivate,
    });
  };
}

/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  subscription UnreadNotificationCount {\n    unreadNotificationCount\n  }\n": typeof types.UnreadNotificationCountDocument,
    "\n  subscription NotificationCreated {\n    notificationCreated {\n      id\n      type\n      entityType\n      createdAt\n    }\n  }\n": typeof types.NotificationCreatedDocument,
    "\n  query Whoami {\n    whoami {\n      userId\n      email\n      orgId\n      roleId\n      scopes\n    }\n  }\n": typeof types.WhoamiDocument,
    "\n  query AdminApiKeys($userId: Int, $page: Int!, $size: Int!) {\n    adminApiKeyPage(userId: $userId, page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        userId\n        name\n        scopes\n        disabled\n        adminDisabled\n        expiresAt\n        lastUsedAt\n        createdAt\n      }\n    }\n  }\n": typeof types.AdminApiKeysDocument,
    "\n  mutation AdminSetApiKeyLocked($id: Int!, $locked: Boolean!) {\n    adminSetApiKeyLocked(id: $id, locked: $locked) {\n      id\n      adminDisabled\n    }\n  }\n": typeof types.AdminSetApiKeyLockedDocument,
    "\n  mutation AdminDeleteApiKey($id: Int!) {\n    adminDeleteApiKey(id: $id)\n  }\n": typeof types.AdminDeleteApiKeyDocument,
    "\n  query AuditLog($page: Int!, $size: Int!, $action: String, $actorType: AuditActorType, $actorUserId: Int, $dateFrom: DateTime, $dateTo: DateTime, $resourceType: String) {\n    auditLogs(page: $page, size: $size, action: $action, actorType: $actorType, actorUserId: $actorUserId, dateFrom: $dateFrom, dateTo: $dateTo, resourceType: $resourceType) {\n      total\n      page\n      pages\n      items {\n        id\n        createdAt\n        action\n        actorType\n        actorUserId\n        actorEmail\n        ipAddress\n        resourceType\n        resourceId\n        metadata\n      }\n    }\n  }\n": typeof types.AuditLogDocument,
    "\n  query AdminOrganisations($page: Int!, $size: Int!) {\n    organisations(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        uuid\n        name\n        description\n        type\n        nationality\n        sector\n        contacts\n        landingPage\n        local\n        restrictedToDomain\n        userCount\n      }\n    }\n  }\n": typeof types.AdminOrganisationsDocument,
    "\n  mutation AdminCreateOrganisation($input: OrganisationInput!) {\n    createOrganisation(input: $input) {\n      id\n    }\n  }\n": typeof types.AdminCreateOrganisationDocument,
    "\n  mutation AdminUpdateOrganisation($id: Int!, $input: OrganisationPatch!) {\n    updateOrganisation(id: $id, input: $input) {\n      id\n    }\n  }\n": typeof types.AdminUpdateOrganisationDocument,
    "\n  mutation AdminDeleteOrganisation($id: Int!) {\n    deleteOrganisation(id: $id)\n  }\n": typeof types.AdminDeleteOrganisationDocument,
    "\n  query AdminRoles($page: Int!, $size: Int!) {\n    roles(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        scopes\n        defaultRole\n        userCount\n      }\n    }\n    scopes {\n      name\n      description\n    }\n  }\n": typeof types.AdminRolesDocument,
    "\n  mutation AdminCreateRole($input: RoleInput!) {\n    createRole(input: $input) {\n      id\n    }\n  }\n": typeof types.AdminCreateRoleDocument,
    "\n  mutation AdminUpdateRole($id: Int!, $input: RolePatch!) {\n    updateRole(id: $id, input: $input) {\n      id\n      name\n      scopes\n      defaultRole\n    }\n  }\n": typeof types.AdminUpdateRoleDocument,
    "\n  mutation AdminDeleteRole($id: Int!) {\n    deleteRole(id: $id)\n  }\n": typeof types.AdminDeleteRoleDocument,
    "\n  query AdminUsers($page: Int!, $size: Int!) {\n    users(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        email\n        disabled\n        createdAt\n        orgId\n        roleId\n        organisation {\n          name\n        }\n        role {\n          name\n        }\n      }\n    }\n    roles(page: 1, size: 100) {\n      items {\n        id\n        name\n      }\n    }\n    organisations(page: 1, size: 100) {\n      items {\n        id\n        name\n      }\n    }\n  }\n": typeof types.AdminUsersDocument,
    "\n  mutation AdminCreateUser($input: CreateUserInput!) {\n    createUser(input: $input) {\n      id\n    }\n  }\n": typeof types.AdminCreateUserDocument,
    "\n  mutation AdminUpdateUser($id: Int!, $input: UpdateUserInput!) {\n    updateUser(id: $id, input: $input) {\n      id\n      email\n      disabled\n      orgId\n      roleId\n    }\n  }\n": typeof types.AdminUpdateUserDocument,
    "\n  mutation AdminDeleteUser($id: Int!) {\n    deleteUser(id: $id)\n  }\n": typeof types.AdminDeleteUserDocument,
    "\n  mutation CreateMcpConfig($expiresIn: Int) {\n    mcpConfig(expiresIn: $expiresIn) {\n      apiKeyId\n      url\n      scopes\n      expiresAt\n      config\n    }\n  }\n": typeof types.CreateMcpConfigDocument,
    "\n  mutation RevokeMcpKey($id: Int!) {\n    deleteApiKey(id: $id)\n  }\n": typeof types.RevokeMcpKeyDocument,
    "\n  mutation CreateAttribute($eventUuid: String!, $input: AttributeInput!) {\n    createAttribute(eventUuid: $eventUuid, input: $input) {\n      uuid\n    }\n  }\n": typeof types.CreateAttributeDocument,
    "\n  mutation UpdateAttribute($uuid: String!, $input: AttributeInput!) {\n    updateAttribute(uuid: $uuid, input: $input) {\n      uuid\n      type\n      category\n      value\n      toIds\n      comment\n      distribution\n    }\n  }\n": typeof types.UpdateAttributeDocument,
    "\n  query EventAttributes($eventUuid: String!, $page: Int, $size: Int, $type: String, $category: String, $value: String) {\n    attributes(eventUuid: $eventUuid, page: $page, size: $size, type: $type, category: $category, value: $value, deleted: false) {\n      total\n      page\n      pages\n      items {\n        uuid\n        type\n        category\n        value\n        toIds\n        comment\n        distribution\n        tags {\n          id\n          name\n          colour\n        }\n      }\n    }\n  }\n": typeof types.EventAttributesDocument,
    "\n  query EditedEvent($uuid: String!) {\n    event(uuid: $uuid) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n    }\n  }\n": typeof types.EditedEventDocument,
    "\n  mutation CreateEvent($input: EventInput!) {\n    createEvent(input: $input) {\n      uuid\n    }\n  }\n": typeof types.CreateEventDocument,
    "\n  mutation UpdateEvent($uuid: String!, $input: EventInput!) {\n    updateEvent(uuid: $uuid, input: $input) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n    }\n  }\n": typeof types.UpdateEventDocument,
    "\n  query EventDetail($uuid: String!) {\n    event(uuid: $uuid) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n      publishTimestamp\n      deleted\n      timestamp\n      attributeCount\n      objectCount\n      org {\n        id\n        name\n      }\n      orgc {\n        id\n        name\n      }\n      tags {\n        id\n        name\n        colour\n        isGalaxy\n      }\n      retention {\n        status\n        expiresInDays\n      }\n      reports {\n        uuid\n        name\n        content\n      }\n    }\n    userSetting(namespace: \"notifications\")\n  }\n": typeof types.EventDetailDocument,
    "\n  mutation FollowEvent($uuid: String!) {\n    follow(list: EVENTS, uuid: $uuid)\n  }\n": typeof types.FollowEventDocument,
    "\n  mutation UnfollowEvent($uuid: String!) {\n    unfollow(list: EVENTS, uuid: $uuid)\n  }\n": typeof types.UnfollowEventDocument,
    "\n  mutation PublishEvent($uuid: String!, $published: Boolean!) {\n    setEventPublished(uuid: $uuid, published: $published) {\n      uuid\n      published\n      publishTimestamp\n    }\n  }\n": typeof types.PublishEventDocument,
    "\n  mutation DeleteEvent($uuid: String!) {\n    deleteEvent(uuid: $uuid)\n  }\n": typeof types.DeleteEventDocument,
    "\n  mutation RestoreEvent($uuid: String!) {\n    restoreEvent(uuid: $uuid) {\n      uuid\n      deleted\n    }\n  }\n": typeof types.RestoreEventDocument,
    "\n  query EventTagSuggestions($text: String!) {\n    tagSuggestions(text: $text, limit: 15) {\n      name\n    }\n  }\n": typeof types.EventTagSuggestionsDocument,
    "\n  mutation TagEvent($uuid: String!, $tag: String!) {\n    tagEvent(uuid: $uuid, tag: $tag)\n  }\n": typeof types.TagEventDocument,
    "\n  mutation UntagEvent($uuid: String!, $tag: String!) {\n    untagEvent(uuid: $uuid, tag: $tag)\n  }\n": typeof types.UntagEventDocument,
    "\n  query EventsList($page: Int, $size: Int, $info: String, $tags: [String!], $orgId: Int, $published: Boolean, $deleted: Boolean) {\n    events(page: $page, size: $size, info: $info, tags: $tags, orgId: $orgId, published: $published, deleted: $deleted) {\n      total\n      page\n      pages\n      items {\n        uuid\n        info\n        date\n        published\n        deleted\n        threatLevel\n        attributeCount\n        org {\n          id\n          name\n        }\n        tags {\n          id\n          name\n          colour\n        }\n        retention {\n          status\n          expiresInDays\n        }\n      }\n    }\n  }\n": typeof types.EventsListDocument,
    "\n  query EventOrganisations {\n    organisations(size: 100) {\n      items {\n        id\n        name\n      }\n    }\n  }\n": typeof types.EventOrganisationsDocument,
    "\n  query EventObjects($eventUuid: String!, $page: Int) {\n    objects(eventUuid: $eventUuid, page: $page, size: 5, deleted: false) {\n      total\n      page\n      pages\n      items {\n        uuid\n        name\n        metaCategory\n        comment\n        attributes {\n          uuid\n          objectRelation\n          type\n          category\n          value\n          toIds\n        }\n      }\n    }\n  }\n": typeof types.EventObjectsDocument,
    "\n  query EventRelated($uuid: String!, $limit: Int!) {\n    event(uuid: $uuid) {\n      uuid\n      relatedEvents(limit: $limit) {\n        uuid\n        info\n        date\n        correlationCount\n        org {\n          id\n          name\n        }\n      }\n    }\n  }\n": typeof types.EventRelatedDocument,
    "\n  query AttributeSightings($attributeUuid: String!, $page: Int) {\n    sightings(attributeUuid: $attributeUuid, page: $page, size: 10) {\n      total\n      page\n      pages\n      items {\n        uuid\n        type\n        source\n        timestamp\n        organisation\n      }\n    }\n  }\n": typeof types.AttributeSightingsDocument,
    "\n  mutation AddSighting($input: [SightingInput!]!) {\n    createSightings(input: $input) {\n      created\n    }\n  }\n": typeof types.AddSightingDocument,
    "\n  query AttributeCatalogue {\n    attributeCategories {\n      name\n      types\n    }\n    attributeTypes {\n      name\n      defaultCategory\n      toIds\n    }\n  }\n": typeof types.AttributeCatalogueDocument,
    "\n  query ExploreSearchEvents($query: String!, $page: Int!, $size: Int!) {\n    searchEvents(query: $query, page: $page, size: $size) {\n      page\n      size\n      total\n      totalRelation\n      hits {\n        id\n        source\n      }\n    }\n  }\n": typeof types.ExploreSearchEventsDocument,
    "\n  query ExploreSearchAttributes($query: String!, $page: Int!, $size: Int!) {\n    searchAttributes(query: $query, page: $page, size: $size) {\n      page\n      size\n      total\n      totalRelation\n      hits {\n        id\n        source\n      }\n    }\n  }\n": typeof types.ExploreSearchAttributesDocument,
    "\n  query ExploreExportUrl($target: ExploreExportTarget!, $query: String!) {\n    exploreExportUrl(target: $target, query: $query, format: JSON)\n  }\n": typeof types.ExploreExportUrlDocument,
    "\n  query ExploreSearchFields {\n    searchFields {\n      index\n      name\n      type\n    }\n  }\n": typeof types.ExploreSearchFieldsDocument,
    "\n  query ExploreSavedSearches {\n    userSetting(namespace: \"explore\")\n  }\n": typeof types.ExploreSavedSearchesDocument,
    "\n  mutation ExploreSetSavedSearches($value: JSON!) {\n    setUserSetting(namespace: \"explore\", value: $value)\n  }\n": typeof types.ExploreSetSavedSearchesDocument,
    "\n  query ExploreSearchHistogram($index: ExploreIndex!, $query: String!, $from: String, $to: String) {\n    searchHistogram(index: $index, query: $query, from: $from, to: $to) {\n      index\n      interval\n      from\n      to\n      total\n      buckets {\n        start\n        count\n      }\n    }\n  }\n": typeof types.ExploreSearchHistogramDocument,
    "\n  query ExploreLookupIndicators($values: [String!]!) {\n    lookupIndicators(values: $values) {\n      input\n      value\n      detectedType\n      found\n      count\n      eventCount\n      types\n      firstSeen\n      lastSeen\n      events {\n        uuid\n        info\n        organisation\n      }\n    }\n  }\n": typeof types.ExploreLookupIndicatorsDocument,
    "\n  mutation UpdateFeed($id: Int!, $feed: FeedFields!) {\n    updateFeed(id: $id, feed: $feed) {\n      id\n      enabled\n      url\n      settings\n    }\n  }\n": typeof types.UpdateFeedDocument,
    "\n  mutation DeleteFeed($id: Int!) {\n    deleteFeed(id: $id)\n  }\n": typeof types.DeleteFeedDocument,
    "\n  query Feed($id: Int!, $runsPage: Int!, $runsSize: Int!, $withRuns: Boolean!) {\n    feed(id: $id) {\n      id\n      name\n      provider\n      url\n      sourceFormat\n      inputSource\n      enabled\n      distribution\n      fixedEvent\n      eventUuid\n      publish\n      overrideIds\n      skipWarninglisted\n      tags\n      settings\n      lastFetchedAt\n      createdAt\n      runs(page: $runsPage, size: $runsSize) @include(if: $withRuns) {\n        total\n        page\n        pages\n        items {\n          id\n          status\n          trigger\n          queuedAt\n          finishedAt\n          result\n          lastError\n        }\n      }\n    }\n  }\n": typeof types.FeedDocument,
    "\n  mutation FetchFeed($id: Int!) {\n    fetchFeed(id: $id) {\n      id\n    }\n  }\n": typeof types.FetchFeedDocument,
    "\n  query FeedPreview($format: FeedPreviewFormat!, $inputSource: FeedInputSource!, $url: String!, $settings: JSON) {\n    feedPreview(format: $format, inputSource: $inputSource, url: $url, settings: $settings, limit: 20) {\n      where\n      value\n      type\n      error\n    }\n  }\n": typeof types.FeedPreviewDocument,
    "\n  query FeedManifest($id: Int!, $page: Int!) {\n    feedExplore(id: $id, page: $page, size: 20) {\n      total\n      page\n      pages\n      items {\n        uuid\n        entry\n      }\n    }\n  }\n": typeof types.FeedManifestDocument,
    "\n  query Feeds($page: Int!, $size: Int!) {\n    feeds(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        provider\n        sourceFormat\n        inputSource\n        enabled\n        lastFetchedAt\n      }\n    }\n  }\n": typeof types.FeedsDocument,
    "\n  mutation CreateFeed($feed: FeedFields!) {\n    createFeed(feed: $feed) {\n      feed {\n        id\n      }\n      ingestion {\n        id\n      }\n    }\n  }\n": typeof types.CreateFeedDocument,
    "\n  query FeedRun($id: String!) {\n    taskRun(id: $id) {\n      id\n      status\n      progress\n      result\n      lastError\n      startedAt\n      finishedAt\n    }\n  }\n": typeof types.FeedRunDocument,
    "\n  query AttackPatterns($filter: String) {\n    mitreAttackPatterns(filter: $filter) {\n      uuid\n      value\n      externalId\n    }\n  }\n": typeof types.AttackPatternsDocument,
    "\n  query HuntToEdit($id: Int!) {\n    hunt(id: $id) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n    }\n  }\n": typeof types.HuntToEditDocument,
    "\n  mutation CreateHunt($input: CreateHuntInput!) {\n    createHunt(input: $input) {\n      id\n    }\n  }\n": typeof types.CreateHuntDocument,
    "\n  mutation UpdateHuntFields($id: Int!, $input: UpdateHuntInput!) {\n    updateHunt(id: $id, input: $input) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n    }\n  }\n": typeof types.UpdateHuntFieldsDocument,
    "\n  query Hunt($id: Int!) {\n    hunt(id: $id) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n      schedule\n      cron\n      nextRunAt\n      lastRunAt\n      lastRunStatus\n      lastRunError\n      lastSuccessAt\n      lastMatchCount\n    }\n  }\n": typeof types.HuntDocument,
    "\n  query HuntHistory($id: Int!, $page: Int!, $size: Int!) {\n    huntHistory(id: $id, page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        runAt\n        status\n        trigger\n        matchCount\n        newHitCount\n        durationMs\n        error\n      }\n    }\n  }\n": typeof types.HuntHistoryDocument,
    "\n  mutation RunHunt($id: Int!) {\n    runHunt(id: $id) {\n      total\n      runAt\n    }\n  }\n": typeof types.RunHuntDocument,
    "\n  mutation SetHuntStatus($id: Int!, $status: HuntStatus!) {\n    updateHunt(id: $id, input: { status: $status }) {\n      id\n      status\n      nextRunAt\n    }\n  }\n": typeof types.SetHuntStatusDocument,
    "\n  mutation ClearHuntHistory($id: Int!) {\n    clearHuntHistory(id: $id)\n  }\n": typeof types.ClearHuntHistoryDocument,
    "\n  mutation DeleteHunt($id: Int!) {\n    deleteHunt(id: $id)\n  }\n": typeof types.DeleteHuntDocument,
    "\n  query HuntResultsPage($id: Int!, $page: Int!, $size: Int!) {\n    huntResults(id: $id, page: $page, size: $size) {\n      total\n      hitCount\n      runAt\n      hits {\n        __typename\n        ... on HuntDocumentHit {\n          uuid\n          docKind\n          isNew\n          document\n        }\n        ... on HuntCveHit {\n          cveId\n          severity\n          description\n          isNew\n        }\n        ... on HuntRuleHit {\n          title\n          detailUrl\n          isNew\n          rule\n        }\n      }\n    }\n  }\n": typeof types.HuntResultsPageDocument,
    "\n  query Hunts($page: Int!, $size: Int!, $filter: String) {\n    hunts(page: $page, size: $size, filter: $filter) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        huntType\n        status\n        lastRunAt\n        lastRunStatus\n        lastMatchCount\n        schedule\n        nextRunAt\n      }\n    }\n  }\n": typeof types.HuntsDocument,
    "\n  mutation SetHuntSchedule($id: Int!, $input: UpdateHuntInput!) {\n    updateHunt(id: $id, input: $input) {\n      id\n      schedule\n      cron\n      scheduledTaskId\n      nextRunAt\n    }\n  }\n": typeof types.SetHuntScheduleDocument,
    "\n  query Notifications($page: Int!, $size: Int!, $type: String, $read: Boolean, $filter: String) {\n    notifications(page: $page, size: $size, type: $type, read: $read, filter: $filter) {\n      total\n      page\n      pages\n      items {\n        id\n        type\n        read\n        createdAt\n        entityType\n        entityUuid\n        payload {\n          __typename\n          ... on HuntNotificationPayload {\n            huntId\n            huntName\n            total\n            previousTotal\n            newHitCount\n          }\n          ... on EventNotificationPayload {\n            eventName\n            eventUuid\n            organisationName\n          }\n          ... on AttributeNotificationPayload {\n            attributeType\n            attributeValue\n            eventTitle\n            eventUuid\n          }\n          ... on ObjectNotificationPayload {\n            objectName\n            eventTitle\n            eventUuid\n          }\n          ... on SightingNotificationPayload {\n            sightingType\n            sightingValue\n            attributeType\n            organisation\n            eventUuid\n          }\n          ... on CorrelationNotificationPayload {\n            value\n            targetAttributeType\n            targetAttributeValue\n            targetEventUuid\n          }\n        }\n      }\n    }\n  }\n": typeof types.NotificationsDocument,
    "\n  subscription NotificationArrived {\n    notificationCreated {\n      id\n    }\n  }\n": typeof types.NotificationArrivedDocument,
    "\n  mutation MarkNotificationRead($id: String!) {\n    markNotificationRead(id: $id)\n  }\n": typeof types.MarkNotificationReadDocument,
    "\n  mutation DeleteNotification($id: String!) {\n    deleteNotification(id: $id)\n  }\n": typeof types.DeleteNotificationDocument,
    "\n  mutation UnfollowNotification($id: Int!) {\n    unfollowNotification(id: $id)\n  }\n": typeof types.UnfollowNotificationDocument,
    "\n  query NotificationSettings {\n    userSetting(namespace: \"notifications\")\n  }\n": typeof types.NotificationSettingsDocument,
    "\n  mutation SaveNotificationSettings($value: JSON!) {\n    setUserSetting(namespace: \"notifications\", value: $value)\n  }\n": typeof types.SaveNotificationSettingsDocument,
    "\n  query ApiKeys($page: Int!, $size: Int!) {\n    apiKeyPage(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        comment\n        scopes\n        disabled\n        adminDisabled\n        expiresAt\n        lastUsedAt\n        createdAt\n      }\n    }\n    scopes {\n      name\n      description\n    }\n  }\n": typeof types.ApiKeysDocument,
    "\n  mutation CreateApiKey($input: CreateApiKeyInput!) {\n    createApiKey(input: $input) {\n      token\n      apiKey {\n        id\n        name\n      }\n    }\n  }\n": typeof types.CreateApiKeyDocument,
    "\n  mutation SetApiKeyDisabled($id: Int!, $disabled: Boolean!) {\n    setApiKeyDisabled(id: $id, disabled: $disabled) {\n      id\n      disabled\n    }\n  }\n": typeof types.SetApiKeyDisabledDocument,
    "\n  mutation DeleteApiKey($id: Int!) {\n    deleteApiKey(id: $id)\n  }\n": typeof types.DeleteApiKeyDocument,
    "\n  query Follows {\n    userSetting(namespace: \"notifications\")\n  }\n": typeof types.FollowsDocument,
    "\n  mutation Unfollow($list: FollowList!, $uuid: String!) {\n    unfollow(list: $list, uuid: $uuid)\n  }\n": typeof types.UnfollowDocument,
    "\n  query RetentionSettings {\n    runtimeSetting(namespace: \"retention\")\n  }\n": typeof types.RetentionSettingsDocument,
    "\n  query RetentionPreview($periodDays: Int!) {\n    retentionPreview(periodDays: $periodDays) {\n      count\n      periodDays\n    }\n  }\n": typeof types.RetentionPreviewDocument,
    "\n  mutation SaveRetention($value: JSON!) {\n    setRuntimeSetting(namespace: \"retention\", value: $value)\n  }\n": typeof types.SaveRetentionDocument,
    "\n  query ScheduledTasks($page: Int!, $size: Int!) {\n    scheduledTasks(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        task\n        enabled\n        dueAt\n        lastRunAt\n        lastRunStatus\n        schedule {\n          description\n        }\n      }\n    }\n  }\n": typeof types.ScheduledTasksDocument,
    "\n  query TaskRuns($page: Int!, $size: Int!, $scheduledTaskId: String, $status: TaskRunStatus) {\n    taskRuns(page: $page, size: $size, scheduledTaskId: $scheduledTaskId, status: $status) {\n      total\n      page\n      pages\n      items {\n        id\n        task\n        status\n        trigger\n        queuedAt\n        finishedAt\n        lastError\n        attempts\n      }\n    }\n  }\n": typeof types.TaskRunsDocument,
    "\n  mutation SetScheduledTaskEnabled($id: String!, $enabled: Boolean!) {\n    updateScheduledTask(id: $id, enabled: $enabled) {\n      id\n      enabled\n      dueAt\n    }\n  }\n": typeof types.SetScheduledTaskEnabledDocument,
    "\n  mutation RunScheduledTask($id: String!) {\n    runScheduledTask(id: $id) {\n      id\n    }\n  }\n": typeof types.RunScheduledTaskDocument,
};
const documents: Documents = {
    "\n  subscription UnreadNotificationCount {\n    unreadNotificationCount\n  }\n": types.UnreadNotificationCountDocument,
    "\n  subscription NotificationCreated {\n    notificationCreated {\n      id\n      type\n      entityType\n      createdAt\n    }\n  }\n": types.NotificationCreatedDocument,
    "\n  query Whoami {\n    whoami {\n      userId\n      email\n      orgId\n      roleId\n      scopes\n    }\n  }\n": types.WhoamiDocument,
    "\n  query AdminApiKeys($userId: Int, $page: Int!, $size: Int!) {\n    adminApiKeyPage(userId: $userId, page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        userId\n        name\n        scopes\n        disabled\n        adminDisabled\n        expiresAt\n        lastUsedAt\n        createdAt\n      }\n    }\n  }\n": types.AdminApiKeysDocument,
    "\n  mutation AdminSetApiKeyLocked($id: Int!, $locked: Boolean!) {\n    adminSetApiKeyLocked(id: $id, locked: $locked) {\n      id\n      adminDisabled\n    }\n  }\n": types.AdminSetApiKeyLockedDocument,
    "\n  mutation AdminDeleteApiKey($id: Int!) {\n    adminDeleteApiKey(id: $id)\n  }\n": types.AdminDeleteApiKeyDocument,
    "\n  query AuditLog($page: Int!, $size: Int!, $action: String, $actorType: AuditActorType, $actorUserId: Int, $dateFrom: DateTime, $dateTo: DateTime, $resourceType: String) {\n    auditLogs(page: $page, size: $size, action: $action, actorType: $actorType, actorUserId: $actorUserId, dateFrom: $dateFrom, dateTo: $dateTo, resourceType: $resourceType) {\n      total\n      page\n      pages\n      items {\n        id\n        createdAt\n        action\n        actorType\n        actorUserId\n        actorEmail\n        ipAddress\n        resourceType\n        resourceId\n        metadata\n      }\n    }\n  }\n": types.AuditLogDocument,
    "\n  query AdminOrganisations($page: Int!, $size: Int!) {\n    organisations(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        uuid\n        name\n        description\n        type\n        nationality\n        sector\n        contacts\n        landingPage\n        local\n        restrictedToDomain\n        userCount\n      }\n    }\n  }\n": types.AdminOrganisationsDocument,
    "\n  mutation AdminCreateOrganisation($input: OrganisationInput!) {\n    createOrganisation(input: $input) {\n      id\n    }\n  }\n": types.AdminCreateOrganisationDocument,
    "\n  mutation AdminUpdateOrganisation($id: Int!, $input: OrganisationPatch!) {\n    updateOrganisation(id: $id, input: $input) {\n      id\n    }\n  }\n": types.AdminUpdateOrganisationDocument,
    "\n  mutation AdminDeleteOrganisation($id: Int!) {\n    deleteOrganisation(id: $id)\n  }\n": types.AdminDeleteOrganisationDocument,
    "\n  query AdminRoles($page: Int!, $size: Int!) {\n    roles(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        scopes\n        defaultRole\n        userCount\n      }\n    }\n    scopes {\n      name\n      description\n    }\n  }\n": types.AdminRolesDocument,
    "\n  mutation AdminCreateRole($input: RoleInput!) {\n    createRole(input: $input) {\n      id\n    }\n  }\n": types.AdminCreateRoleDocument,
    "\n  mutation AdminUpdateRole($id: Int!, $input: RolePatch!) {\n    updateRole(id: $id, input: $input) {\n      id\n      name\n      scopes\n      defaultRole\n    }\n  }\n": types.AdminUpdateRoleDocument,
    "\n  mutation AdminDeleteRole($id: Int!) {\n    deleteRole(id: $id)\n  }\n": types.AdminDeleteRoleDocument,
    "\n  query AdminUsers($page: Int!, $size: Int!) {\n    users(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        email\n        disabled\n        createdAt\n        orgId\n        roleId\n        organisation {\n          name\n        }\n        role {\n          name\n        }\n      }\n    }\n    roles(page: 1, size: 100) {\n      items {\n        id\n        name\n      }\n    }\n    organisations(page: 1, size: 100) {\n      items {\n        id\n        name\n      }\n    }\n  }\n": types.AdminUsersDocument,
    "\n  mutation AdminCreateUser($input: CreateUserInput!) {\n    createUser(input: $input) {\n      id\n    }\n  }\n": types.AdminCreateUserDocument,
    "\n  mutation AdminUpdateUser($id: Int!, $input: UpdateUserInput!) {\n    updateUser(id: $id, input: $input) {\n      id\n      email\n      disabled\n      orgId\n      roleId\n    }\n  }\n": types.AdminUpdateUserDocument,
    "\n  mutation AdminDeleteUser($id: Int!) {\n    deleteUser(id: $id)\n  }\n": types.AdminDeleteUserDocument,
    "\n  mutation CreateMcpConfig($expiresIn: Int) {\n    mcpConfig(expiresIn: $expiresIn) {\n      apiKeyId\n      url\n      scopes\n      expiresAt\n      config\n    }\n  }\n": types.CreateMcpConfigDocument,
    "\n  mutation RevokeMcpKey($id: Int!) {\n    deleteApiKey(id: $id)\n  }\n": types.RevokeMcpKeyDocument,
    "\n  mutation CreateAttribute($eventUuid: String!, $input: AttributeInput!) {\n    createAttribute(eventUuid: $eventUuid, input: $input) {\n      uuid\n    }\n  }\n": types.CreateAttributeDocument,
    "\n  mutation UpdateAttribute($uuid: String!, $input: AttributeInput!) {\n    updateAttribute(uuid: $uuid, input: $input) {\n      uuid\n      type\n      category\n      value\n      toIds\n      comment\n      distribution\n    }\n  }\n": types.UpdateAttributeDocument,
    "\n  query EventAttributes($eventUuid: String!, $page: Int, $size: Int, $type: String, $category: String, $value: String) {\n    attributes(eventUuid: $eventUuid, page: $page, size: $size, type: $type, category: $category, value: $value, deleted: false) {\n      total\n      page\n      pages\n      items {\n        uuid\n        type\n        category\n        value\n        toIds\n        comment\n        distribution\n        tags {\n          id\n          name\n          colour\n        }\n      }\n    }\n  }\n": types.EventAttributesDocument,
    "\n  query EditedEvent($uuid: String!) {\n    event(uuid: $uuid) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n    }\n  }\n": types.EditedEventDocument,
    "\n  mutation CreateEvent($input: EventInput!) {\n    createEvent(input: $input) {\n      uuid\n    }\n  }\n": types.CreateEventDocument,
    "\n  mutation UpdateEvent($uuid: String!, $input: EventInput!) {\n    updateEvent(uuid: $uuid, input: $input) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n    }\n  }\n": types.UpdateEventDocument,
    "\n  query EventDetail($uuid: String!) {\n    event(uuid: $uuid) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n      publishTimestamp\n      deleted\n      timestamp\n      attributeCount\n      objectCount\n      org {\n        id\n        name\n      }\n      orgc {\n        id\n        name\n      }\n      tags {\n        id\n        name\n        colour\n        isGalaxy\n      }\n      retention {\n        status\n        expiresInDays\n      }\n      reports {\n        uuid\n        name\n        content\n      }\n    }\n    userSetting(namespace: \"notifications\")\n  }\n": types.EventDetailDocument,
    "\n  mutation FollowEvent($uuid: String!) {\n    follow(list: EVENTS, uuid: $uuid)\n  }\n": types.FollowEventDocument,
    "\n  mutation UnfollowEvent($uuid: String!) {\n    unfollow(list: EVENTS, uuid: $uuid)\n  }\n": types.UnfollowEventDocument,
    "\n  mutation PublishEvent($uuid: String!, $published: Boolean!) {\n    setEventPublished(uuid: $uuid, published: $published) {\n      uuid\n      published\n      publishTimestamp\n    }\n  }\n": types.PublishEventDocument,
    "\n  mutation DeleteEvent($uuid: String!) {\n    deleteEvent(uuid: $uuid)\n  }\n": types.DeleteEventDocument,
    "\n  mutation RestoreEvent($uuid: String!) {\n    restoreEvent(uuid: $uuid) {\n      uuid\n      deleted\n    }\n  }\n": types.RestoreEventDocument,
    "\n  query EventTagSuggestions($text: String!) {\n    tagSuggestions(text: $text, limit: 15) {\n      name\n    }\n  }\n": types.EventTagSuggestionsDocument,
    "\n  mutation TagEvent($uuid: String!, $tag: String!) {\n    tagEvent(uuid: $uuid, tag: $tag)\n  }\n": types.TagEventDocument,
    "\n  mutation UntagEvent($uuid: String!, $tag: String!) {\n    untagEvent(uuid: $uuid, tag: $tag)\n  }\n": types.UntagEventDocument,
    "\n  query EventsList($page: Int, $size: Int, $info: String, $tags: [String!], $orgId: Int, $published: Boolean, $deleted: Boolean) {\n    events(page: $page, size: $size, info: $info, tags: $tags, orgId: $orgId, published: $published, deleted: $deleted) {\n      total\n      page\n      pages\n      items {\n        uuid\n        info\n        date\n        published\n        deleted\n        threatLevel\n        attributeCount\n        org {\n          id\n          name\n        }\n        tags {\n          id\n          name\n          colour\n        }\n        retention {\n          status\n          expiresInDays\n        }\n      }\n    }\n  }\n": types.EventsListDocument,
    "\n  query EventOrganisations {\n    organisations(size: 100) {\n      items {\n        id\n        name\n      }\n    }\n  }\n": types.EventOrganisationsDocument,
    "\n  query EventObjects($eventUuid: String!, $page: Int) {\n    objects(eventUuid: $eventUuid, page: $page, size: 5, deleted: false) {\n      total\n      page\n      pages\n      items {\n        uuid\n        name\n        metaCategory\n        comment\n        attributes {\n          uuid\n          objectRelation\n          type\n          category\n          value\n          toIds\n        }\n      }\n    }\n  }\n": types.EventObjectsDocument,
    "\n  query EventRelated($uuid: String!, $limit: Int!) {\n    event(uuid: $uuid) {\n      uuid\n      relatedEvents(limit: $limit) {\n        uuid\n        info\n        date\n        correlationCount\n        org {\n          id\n          name\n        }\n      }\n    }\n  }\n": types.EventRelatedDocument,
    "\n  query AttributeSightings($attributeUuid: String!, $page: Int) {\n    sightings(attributeUuid: $attributeUuid, page: $page, size: 10) {\n      total\n      page\n      pages\n      items {\n        uuid\n        type\n        source\n        timestamp\n        organisation\n      }\n    }\n  }\n": types.AttributeSightingsDocument,
    "\n  mutation AddSighting($input: [SightingInput!]!) {\n    createSightings(input: $input) {\n      created\n    }\n  }\n": types.AddSightingDocument,
    "\n  query AttributeCatalogue {\n    attributeCategories {\n      name\n      types\n    }\n    attributeTypes {\n      name\n      defaultCategory\n      toIds\n    }\n  }\n": types.AttributeCatalogueDocument,
    "\n  query ExploreSearchEvents($query: String!, $page: Int!, $size: Int!) {\n    searchEvents(query: $query, page: $page, size: $size) {\n      page\n      size\n      total\n      totalRelation\n      hits {\n        id\n        source\n      }\n    }\n  }\n": types.ExploreSearchEventsDocument,
    "\n  query ExploreSearchAttributes($query: String!, $page: Int!, $size: Int!) {\n    searchAttributes(query: $query, page: $page, size: $size) {\n      page\n      size\n      total\n      totalRelation\n      hits {\n        id\n        source\n      }\n    }\n  }\n": types.ExploreSearchAttributesDocument,
    "\n  query ExploreExportUrl($target: ExploreExportTarget!, $query: String!) {\n    exploreExportUrl(target: $target, query: $query, format: JSON)\n  }\n": types.ExploreExportUrlDocument,
    "\n  query ExploreSearchFields {\n    searchFields {\n      index\n      name\n      type\n    }\n  }\n": types.ExploreSearchFieldsDocument,
    "\n  query ExploreSavedSearches {\n    userSetting(namespace: \"explore\")\n  }\n": types.ExploreSavedSearchesDocument,
    "\n  mutation ExploreSetSavedSearches($value: JSON!) {\n    setUserSetting(namespace: \"explore\", value: $value)\n  }\n": types.ExploreSetSavedSearchesDocument,
    "\n  query ExploreSearchHistogram($index: ExploreIndex!, $query: String!, $from: String, $to: String) {\n    searchHistogram(index: $index, query: $query, from: $from, to: $to) {\n      index\n      interval\n      from\n      to\n      total\n      buckets {\n        start\n        count\n      }\n    }\n  }\n": types.ExploreSearchHistogramDocument,
    "\n  query ExploreLookupIndicators($values: [String!]!) {\n    lookupIndicators(values: $values) {\n      input\n      value\n      detectedType\n      found\n      count\n      eventCount\n      types\n      firstSeen\n      lastSeen\n      events {\n        uuid\n        info\n        organisation\n      }\n    }\n  }\n": types.ExploreLookupIndicatorsDocument,
    "\n  mutation UpdateFeed($id: Int!, $feed: FeedFields!) {\n    updateFeed(id: $id, feed: $feed) {\n      id\n      enabled\n      url\n      settings\n    }\n  }\n": types.UpdateFeedDocument,
    "\n  mutation DeleteFeed($id: Int!) {\n    deleteFeed(id: $id)\n  }\n": types.DeleteFeedDocument,
    "\n  query Feed($id: Int!, $runsPage: Int!, $runsSize: Int!, $withRuns: Boolean!) {\n    feed(id: $id) {\n      id\n      name\n      provider\n      url\n      sourceFormat\n      inputSource\n      enabled\n      distribution\n      fixedEvent\n      eventUuid\n      publish\n      overrideIds\n      skipWarninglisted\n      tags\n      settings\n      lastFetchedAt\n      createdAt\n      runs(page: $runsPage, size: $runsSize) @include(if: $withRuns) {\n        total\n        page\n        pages\n        items {\n          id\n          status\n          trigger\n          queuedAt\n          finishedAt\n          result\n          lastError\n        }\n      }\n    }\n  }\n": types.FeedDocument,
    "\n  mutation FetchFeed($id: Int!) {\n    fetchFeed(id: $id) {\n      id\n    }\n  }\n": types.FetchFeedDocument,
    "\n  query FeedPreview($format: FeedPreviewFormat!, $inputSource: FeedInputSource!, $url: String!, $settings: JSON) {\n    feedPreview(format: $format, inputSource: $inputSource, url: $url, settings: $settings, limit: 20) {\n      where\n      value\n      type\n      error\n    }\n  }\n": types.FeedPreviewDocument,
    "\n  query FeedManifest($id: Int!, $page: Int!) {\n    feedExplore(id: $id, page: $page, size: 20) {\n      total\n      page\n      pages\n      items {\n        uuid\n        entry\n      }\n    }\n  }\n": types.FeedManifestDocument,
    "\n  query Feeds($page: Int!, $size: Int!) {\n    feeds(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        provider\n        sourceFormat\n        inputSource\n        enabled\n        lastFetchedAt\n      }\n    }\n  }\n": types.FeedsDocument,
    "\n  mutation CreateFeed($feed: FeedFields!) {\n    createFeed(feed: $feed) {\n      feed {\n        id\n      }\n      ingestion {\n        id\n      }\n    }\n  }\n": types.CreateFeedDocument,
    "\n  query FeedRun($id: String!) {\n    taskRun(id: $id) {\n      id\n      status\n      progress\n      result\n      lastError\n      startedAt\n      finishedAt\n    }\n  }\n": types.FeedRunDocument,
    "\n  query AttackPatterns($filter: String) {\n    mitreAttackPatterns(filter: $filter) {\n      uuid\n      value\n      externalId\n    }\n  }\n": types.AttackPatternsDocument,
    "\n  query HuntToEdit($id: Int!) {\n    hunt(id: $id) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n    }\n  }\n": types.HuntToEditDocument,
    "\n  mutation CreateHunt($input: CreateHuntInput!) {\n    createHunt(input: $input) {\n      id\n    }\n  }\n": types.CreateHuntDocument,
    "\n  mutation UpdateHuntFields($id: Int!, $input: UpdateHuntInput!) {\n    updateHunt(id: $id, input: $input) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n    }\n  }\n": types.UpdateHuntFieldsDocument,
    "\n  query Hunt($id: Int!) {\n    hunt(id: $id) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n      schedule\n      cron\n      nextRunAt\n      lastRunAt\n      lastRunStatus\n      lastRunError\n      lastSuccessAt\n      lastMatchCount\n    }\n  }\n": types.HuntDocument,
    "\n  query HuntHistory($id: Int!, $page: Int!, $size: Int!) {\n    huntHistory(id: $id, page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        runAt\n        status\n        trigger\n        matchCount\n        newHitCount\n        durationMs\n        error\n      }\n    }\n  }\n": types.HuntHistoryDocument,
    "\n  mutation RunHunt($id: Int!) {\n    runHunt(id: $id) {\n      total\n      runAt\n    }\n  }\n": types.RunHuntDocument,
    "\n  mutation SetHuntStatus($id: Int!, $status: HuntStatus!) {\n    updateHunt(id: $id, input: { status: $status }) {\n      id\n      status\n      nextRunAt\n    }\n  }\n": types.SetHuntStatusDocument,
    "\n  mutation ClearHuntHistory($id: Int!) {\n    clearHuntHistory(id: $id)\n  }\n": types.ClearHuntHistoryDocument,
    "\n  mutation DeleteHunt($id: Int!) {\n    deleteHunt(id: $id)\n  }\n": types.DeleteHuntDocument,
    "\n  query HuntResultsPage($id: Int!, $page: Int!, $size: Int!) {\n    huntResults(id: $id, page: $page, size: $size) {\n      total\n      hitCount\n      runAt\n      hits {\n        __typename\n        ... on HuntDocumentHit {\n          uuid\n          docKind\n          isNew\n          document\n        }\n        ... on HuntCveHit {\n          cveId\n          severity\n          description\n          isNew\n        }\n        ... on HuntRuleHit {\n          title\n          detailUrl\n          isNew\n          rule\n        }\n      }\n    }\n  }\n": types.HuntResultsPageDocument,
    "\n  query Hunts($page: Int!, $size: Int!, $filter: String) {\n    hunts(page: $page, size: $size, filter: $filter) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        huntType\n        status\n        lastRunAt\n        lastRunStatus\n        lastMatchCount\n        schedule\n        nextRunAt\n      }\n    }\n  }\n": types.HuntsDocument,
    "\n  mutation SetHuntSchedule($id: Int!, $input: UpdateHuntInput!) {\n    updateHunt(id: $id, input: $input) {\n      id\n      schedule\n      cron\n      scheduledTaskId\n      nextRunAt\n    }\n  }\n": types.SetHuntScheduleDocument,
    "\n  query Notifications($page: Int!, $size: Int!, $type: String, $read: Boolean, $filter: String) {\n    notifications(page: $page, size: $size, type: $type, read: $read, filter: $filter) {\n      total\n      page\n      pages\n      items {\n        id\n        type\n        read\n        createdAt\n        entityType\n        entityUuid\n        payload {\n          __typename\n          ... on HuntNotificationPayload {\n            huntId\n            huntName\n            total\n            previousTotal\n            newHitCount\n          }\n          ... on EventNotificationPayload {\n            eventName\n            eventUuid\n            organisationName\n          }\n          ... on AttributeNotificationPayload {\n            attributeType\n            attributeValue\n            eventTitle\n            eventUuid\n          }\n          ... on ObjectNotificationPayload {\n            objectName\n            eventTitle\n            eventUuid\n          }\n          ... on SightingNotificationPayload {\n            sightingType\n            sightingValue\n            attributeType\n            organisation\n            eventUuid\n          }\n          ... on CorrelationNotificationPayload {\n            value\n            targetAttributeType\n            targetAttributeValue\n            targetEventUuid\n          }\n        }\n      }\n    }\n  }\n": types.NotificationsDocument,
    "\n  subscription NotificationArrived {\n    notificationCreated {\n      id\n    }\n  }\n": types.NotificationArrivedDocument,
    "\n  mutation MarkNotificationRead($id: String!) {\n    markNotificationRead(id: $id)\n  }\n": types.MarkNotificationReadDocument,
    "\n  mutation DeleteNotification($id: String!) {\n    deleteNotification(id: $id)\n  }\n": types.DeleteNotificationDocument,
    "\n  mutation UnfollowNotification($id: Int!) {\n    unfollowNotification(id: $id)\n  }\n": types.UnfollowNotificationDocument,
    "\n  query NotificationSettings {\n    userSetting(namespace: \"notifications\")\n  }\n": types.NotificationSettingsDocument,
    "\n  mutation SaveNotificationSettings($value: JSON!) {\n    setUserSetting(namespace: \"notifications\", value: $value)\n  }\n": types.SaveNotificationSettingsDocument,
    "\n  query ApiKeys($page: Int!, $size: Int!) {\n    apiKeyPage(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        comment\n        scopes\n        disabled\n        adminDisabled\n        expiresAt\n        lastUsedAt\n        createdAt\n      }\n    }\n    scopes {\n      name\n      description\n    }\n  }\n": types.ApiKeysDocument,
    "\n  mutation CreateApiKey($input: CreateApiKeyInput!) {\n    createApiKey(input: $input) {\n      token\n      apiKey {\n        id\n        name\n      }\n    }\n  }\n": types.CreateApiKeyDocument,
    "\n  mutation SetApiKeyDisabled($id: Int!, $disabled: Boolean!) {\n    setApiKeyDisabled(id: $id, disabled: $disabled) {\n      id\n      disabled\n    }\n  }\n": types.SetApiKeyDisabledDocument,
    "\n  mutation DeleteApiKey($id: Int!) {\n    deleteApiKey(id: $id)\n  }\n": types.DeleteApiKeyDocument,
    "\n  query Follows {\n    userSetting(namespace: \"notifications\")\n  }\n": types.FollowsDocument,
    "\n  mutation Unfollow($list: FollowList!, $uuid: String!) {\n    unfollow(list: $list, uuid: $uuid)\n  }\n": types.UnfollowDocument,
    "\n  query RetentionSettings {\n    runtimeSetting(namespace: \"retention\")\n  }\n": types.RetentionSettingsDocument,
    "\n  query RetentionPreview($periodDays: Int!) {\n    retentionPreview(periodDays: $periodDays) {\n      count\n      periodDays\n    }\n  }\n": types.RetentionPreviewDocument,
    "\n  mutation SaveRetention($value: JSON!) {\n    setRuntimeSetting(namespace: \"retention\", value: $value)\n  }\n": types.SaveRetentionDocument,
    "\n  query ScheduledTasks($page: Int!, $size: Int!) {\n    scheduledTasks(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        task\n        enabled\n        dueAt\n        lastRunAt\n        lastRunStatus\n        schedule {\n          description\n        }\n      }\n    }\n  }\n": types.ScheduledTasksDocument,
    "\n  query TaskRuns($page: Int!, $size: Int!, $scheduledTaskId: String, $status: TaskRunStatus) {\n    taskRuns(page: $page, size: $size, scheduledTaskId: $scheduledTaskId, status: $status) {\n      total\n      page\n      pages\n      items {\n        id\n        task\n        status\n        trigger\n        queuedAt\n        finishedAt\n        lastError\n        attempts\n      }\n    }\n  }\n": types.TaskRunsDocument,
    "\n  mutation SetScheduledTaskEnabled($id: String!, $enabled: Boolean!) {\n    updateScheduledTask(id: $id, enabled: $enabled) {\n      id\n      enabled\n      dueAt\n    }\n  }\n": types.SetScheduledTaskEnabledDocument,
    "\n  mutation RunScheduledTask($id: String!) {\n    runScheduledTask(id: $id) {\n      id\n    }\n  }\n": types.RunScheduledTaskDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription UnreadNotificationCount {\n    unreadNotificationCount\n  }\n"): (typeof documents)["\n  subscription UnreadNotificationCount {\n    unreadNotificationCount\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription NotificationCreated {\n    notificationCreated {\n      id\n      type\n      entityType\n      createdAt\n    }\n  }\n"): (typeof documents)["\n  subscription NotificationCreated {\n    notificationCreated {\n      id\n      type\n      entityType\n      createdAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Whoami {\n    whoami {\n      userId\n      email\n      orgId\n      roleId\n      scopes\n    }\n  }\n"): (typeof documents)["\n  query Whoami {\n    whoami {\n      userId\n      email\n      orgId\n      roleId\n      scopes\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AdminApiKeys($userId: Int, $page: Int!, $size: Int!) {\n    adminApiKeyPage(userId: $userId, page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        userId\n        name\n        scopes\n        disabled\n        adminDisabled\n        expiresAt\n        lastUsedAt\n        createdAt\n      }\n    }\n  }\n"): (typeof documents)["\n  query AdminApiKeys($userId: Int, $page: Int!, $size: Int!) {\n    adminApiKeyPage(userId: $userId, page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        userId\n        name\n        scopes\n        disabled\n        adminDisabled\n        expiresAt\n        lastUsedAt\n        createdAt\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AdminSetApiKeyLocked($id: Int!, $locked: Boolean!) {\n    adminSetApiKeyLocked(id: $id, locked: $locked) {\n      id\n      adminDisabled\n    }\n  }\n"): (typeof documents)["\n  mutation AdminSetApiKeyLocked($id: Int!, $locked: Boolean!) {\n    adminSetApiKeyLocked(id: $id, locked: $locked) {\n      id\n      adminDisabled\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AdminDeleteApiKey($id: Int!) {\n    adminDeleteApiKey(id: $id)\n  }\n"): (typeof documents)["\n  mutation AdminDeleteApiKey($id: Int!) {\n    adminDeleteApiKey(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AuditLog($page: Int!, $size: Int!, $action: String, $actorType: AuditActorType, $actorUserId: Int, $dateFrom: DateTime, $dateTo: DateTime, $resourceType: String) {\n    auditLogs(page: $page, size: $size, action: $action, actorType: $actorType, actorUserId: $actorUserId, dateFrom: $dateFrom, dateTo: $dateTo, resourceType: $resourceType) {\n      total\n      page\n      pages\n      items {\n        id\n        createdAt\n        action\n        actorType\n        actorUserId\n        actorEmail\n        ipAddress\n        resourceType\n        resourceId\n        metadata\n      }\n    }\n  }\n"): (typeof documents)["\n  query AuditLog($page: Int!, $size: Int!, $action: String, $actorType: AuditActorType, $actorUserId: Int, $dateFrom: DateTime, $dateTo: DateTime, $resourceType: String) {\n    auditLogs(page: $page, size: $size, action: $action, actorType: $actorType, actorUserId: $actorUserId, dateFrom: $dateFrom, dateTo: $dateTo, resourceType: $resourceType) {\n      total\n      page\n      pages\n      items {\n        id\n        createdAt\n        action\n        actorType\n        actorUserId\n        actorEmail\n        ipAddress\n        resourceType\n        resourceId\n        metadata\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AdminOrganisations($page: Int!, $size: Int!) {\n    organisations(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        uuid\n        name\n        description\n        type\n        nationality\n        sector\n        contacts\n        landingPage\n        local\n        restrictedToDomain\n        userCount\n      }\n    }\n  }\n"): (typeof documents)["\n  query AdminOrganisations($page: Int!, $size: Int!) {\n    organisations(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        uuid\n        name\n        description\n        type\n        nationality\n        sector\n        contacts\n        landingPage\n        local\n        restrictedToDomain\n        userCount\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AdminCreateOrganisation($input: OrganisationInput!) {\n    createOrganisation(input: $input) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation AdminCreateOrganisation($input: OrganisationInput!) {\n    createOrganisation(input: $input) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AdminUpdateOrganisation($id: Int!, $input: OrganisationPatch!) {\n    updateOrganisation(id: $id, input: $input) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation AdminUpdateOrganisation($id: Int!, $input: OrganisationPatch!) {\n    updateOrganisation(id: $id, input: $input) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AdminDeleteOrganisation($id: Int!) {\n    deleteOrganisation(id: $id)\n  }\n"): (typeof documents)["\n  mutation AdminDeleteOrganisation($id: Int!) {\n    deleteOrganisation(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AdminRoles($page: Int!, $size: Int!) {\n    roles(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        scopes\n        defaultRole\n        userCount\n      }\n    }\n    scopes {\n      name\n      description\n    }\n  }\n"): (typeof documents)["\n  query AdminRoles($page: Int!, $size: Int!) {\n    roles(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        scopes\n        defaultRole\n        userCount\n      }\n    }\n    scopes {\n      name\n      description\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AdminCreateRole($input: RoleInput!) {\n    createRole(input: $input) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation AdminCreateRole($input: RoleInput!) {\n    createRole(input: $input) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AdminUpdateRole($id: Int!, $input: RolePatch!) {\n    updateRole(id: $id, input: $input) {\n      id\n      name\n      scopes\n      defaultRole\n    }\n  }\n"): (typeof documents)["\n  mutation AdminUpdateRole($id: Int!, $input: RolePatch!) {\n    updateRole(id: $id, input: $input) {\n      id\n      name\n      scopes\n      defaultRole\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AdminDeleteRole($id: Int!) {\n    deleteRole(id: $id)\n  }\n"): (typeof documents)["\n  mutation AdminDeleteRole($id: Int!) {\n    deleteRole(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AdminUsers($page: Int!, $size: Int!) {\n    users(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        email\n        disabled\n        createdAt\n        orgId\n        roleId\n        organisation {\n          name\n        }\n        role {\n          name\n        }\n      }\n    }\n    roles(page: 1, size: 100) {\n      items {\n        id\n        name\n      }\n    }\n    organisations(page: 1, size: 100) {\n      items {\n        id\n        name\n      }\n    }\n  }\n"): (typeof documents)["\n  query AdminUsers($page: Int!, $size: Int!) {\n    users(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        email\n        disabled\n        createdAt\n        orgId\n        roleId\n        organisation {\n          name\n        }\n        role {\n          name\n        }\n      }\n    }\n    roles(page: 1, size: 100) {\n      items {\n        id\n        name\n      }\n    }\n    organisations(page: 1, size: 100) {\n      items {\n        id\n        name\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AdminCreateUser($input: CreateUserInput!) {\n    createUser(input: $input) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation AdminCreateUser($input: CreateUserInput!) {\n    createUser(input: $input) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AdminUpdateUser($id: Int!, $input: UpdateUserInput!) {\n    updateUser(id: $id, input: $input) {\n      id\n      email\n      disabled\n      orgId\n      roleId\n    }\n  }\n"): (typeof documents)["\n  mutation AdminUpdateUser($id: Int!, $input: UpdateUserInput!) {\n    updateUser(id: $id, input: $input) {\n      id\n      email\n      disabled\n      orgId\n      roleId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AdminDeleteUser($id: Int!) {\n    deleteUser(id: $id)\n  }\n"): (typeof documents)["\n  mutation AdminDeleteUser($id: Int!) {\n    deleteUser(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateMcpConfig($expiresIn: Int) {\n    mcpConfig(expiresIn: $expiresIn) {\n      apiKeyId\n      url\n      scopes\n      expiresAt\n      config\n    }\n  }\n"): (typeof documents)["\n  mutation CreateMcpConfig($expiresIn: Int) {\n    mcpConfig(expiresIn: $expiresIn) {\n      apiKeyId\n      url\n      scopes\n      expiresAt\n      config\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RevokeMcpKey($id: Int!) {\n    deleteApiKey(id: $id)\n  }\n"): (typeof documents)["\n  mutation RevokeMcpKey($id: Int!) {\n    deleteApiKey(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateAttribute($eventUuid: String!, $input: AttributeInput!) {\n    createAttribute(eventUuid: $eventUuid, input: $input) {\n      uuid\n    }\n  }\n"): (typeof documents)["\n  mutation CreateAttribute($eventUuid: String!, $input: AttributeInput!) {\n    createAttribute(eventUuid: $eventUuid, input: $input) {\n      uuid\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateAttribute($uuid: String!, $input: AttributeInput!) {\n    updateAttribute(uuid: $uuid, input: $input) {\n      uuid\n      type\n      category\n      value\n      toIds\n      comment\n      distribution\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateAttribute($uuid: String!, $input: AttributeInput!) {\n    updateAttribute(uuid: $uuid, input: $input) {\n      uuid\n      type\n      category\n      value\n      toIds\n      comment\n      distribution\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventAttributes($eventUuid: String!, $page: Int, $size: Int, $type: String, $category: String, $value: String) {\n    attributes(eventUuid: $eventUuid, page: $page, size: $size, type: $type, category: $category, value: $value, deleted: false) {\n      total\n      page\n      pages\n      items {\n        uuid\n        type\n        category\n        value\n        toIds\n        comment\n        distribution\n        tags {\n          id\n          name\n          colour\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query EventAttributes($eventUuid: String!, $page: Int, $size: Int, $type: String, $category: String, $value: String) {\n    attributes(eventUuid: $eventUuid, page: $page, size: $size, type: $type, category: $category, value: $value, deleted: false) {\n      total\n      page\n      pages\n      items {\n        uuid\n        type\n        category\n        value\n        toIds\n        comment\n        distribution\n        tags {\n          id\n          name\n          colour\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EditedEvent($uuid: String!) {\n    event(uuid: $uuid) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n    }\n  }\n"): (typeof documents)["\n  query EditedEvent($uuid: String!) {\n    event(uuid: $uuid) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateEvent($input: EventInput!) {\n    createEvent(input: $input) {\n      uuid\n    }\n  }\n"): (typeof documents)["\n  mutation CreateEvent($input: EventInput!) {\n    createEvent(input: $input) {\n      uuid\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateEvent($uuid: String!, $input: EventInput!) {\n    updateEvent(uuid: $uuid, input: $input) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateEvent($uuid: String!, $input: EventInput!) {\n    updateEvent(uuid: $uuid, input: $input) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventDetail($uuid: String!) {\n    event(uuid: $uuid) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n      publishTimestamp\n      deleted\n      timestamp\n      attributeCount\n      objectCount\n      org {\n        id\n        name\n      }\n      orgc {\n        id\n        name\n      }\n      tags {\n        id\n        name\n        colour\n        isGalaxy\n      }\n      retention {\n        status\n        expiresInDays\n      }\n      reports {\n        uuid\n        name\n        content\n      }\n    }\n    userSetting(namespace: \"notifications\")\n  }\n"): (typeof documents)["\n  query EventDetail($uuid: String!) {\n    event(uuid: $uuid) {\n      uuid\n      info\n      date\n      threatLevel\n      analysis\n      distribution\n      published\n      publishTimestamp\n      deleted\n      timestamp\n      attributeCount\n      objectCount\n      org {\n        id\n        name\n      }\n      orgc {\n        id\n        name\n      }\n      tags {\n        id\n        name\n        colour\n        isGalaxy\n      }\n      retention {\n        status\n        expiresInDays\n      }\n      reports {\n        uuid\n        name\n        content\n      }\n    }\n    userSetting(namespace: \"notifications\")\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation FollowEvent($uuid: String!) {\n    follow(list: EVENTS, uuid: $uuid)\n  }\n"): (typeof documents)["\n  mutation FollowEvent($uuid: String!) {\n    follow(list: EVENTS, uuid: $uuid)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UnfollowEvent($uuid: String!) {\n    unfollow(list: EVENTS, uuid: $uuid)\n  }\n"): (typeof documents)["\n  mutation UnfollowEvent($uuid: String!) {\n    unfollow(list: EVENTS, uuid: $uuid)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PublishEvent($uuid: String!, $published: Boolean!) {\n    setEventPublished(uuid: $uuid, published: $published) {\n      uuid\n      published\n      publishTimestamp\n    }\n  }\n"): (typeof documents)["\n  mutation PublishEvent($uuid: String!, $published: Boolean!) {\n    setEventPublished(uuid: $uuid, published: $published) {\n      uuid\n      published\n      publishTimestamp\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteEvent($uuid: String!) {\n    deleteEvent(uuid: $uuid)\n  }\n"): (typeof documents)["\n  mutation DeleteEvent($uuid: String!) {\n    deleteEvent(uuid: $uuid)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RestoreEvent($uuid: String!) {\n    restoreEvent(uuid: $uuid) {\n      uuid\n      deleted\n    }\n  }\n"): (typeof documents)["\n  mutation RestoreEvent($uuid: String!) {\n    restoreEvent(uuid: $uuid) {\n      uuid\n      deleted\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventTagSuggestions($text: String!) {\n    tagSuggestions(text: $text, limit: 15) {\n      name\n    }\n  }\n"): (typeof documents)["\n  query EventTagSuggestions($text: String!) {\n    tagSuggestions(text: $text, limit: 15) {\n      name\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TagEvent($uuid: String!, $tag: String!) {\n    tagEvent(uuid: $uuid, tag: $tag)\n  }\n"): (typeof documents)["\n  mutation TagEvent($uuid: String!, $tag: String!) {\n    tagEvent(uuid: $uuid, tag: $tag)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UntagEvent($uuid: String!, $tag: String!) {\n    untagEvent(uuid: $uuid, tag: $tag)\n  }\n"): (typeof documents)["\n  mutation UntagEvent($uuid: String!, $tag: String!) {\n    untagEvent(uuid: $uuid, tag: $tag)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventsList($page: Int, $size: Int, $info: String, $tags: [String!], $orgId: Int, $published: Boolean, $deleted: Boolean) {\n    events(page: $page, size: $size, info: $info, tags: $tags, orgId: $orgId, published: $published, deleted: $deleted) {\n      total\n      page\n      pages\n      items {\n        uuid\n        info\n        date\n        published\n        deleted\n        threatLevel\n        attributeCount\n        org {\n          id\n          name\n        }\n        tags {\n          id\n          name\n          colour\n        }\n        retention {\n          status\n          expiresInDays\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query EventsList($page: Int, $size: Int, $info: String, $tags: [String!], $orgId: Int, $published: Boolean, $deleted: Boolean) {\n    events(page: $page, size: $size, info: $info, tags: $tags, orgId: $orgId, published: $published, deleted: $deleted) {\n      total\n      page\n      pages\n      items {\n        uuid\n        info\n        date\n        published\n        deleted\n        threatLevel\n        attributeCount\n        org {\n          id\n          name\n        }\n        tags {\n          id\n          name\n          colour\n        }\n        retention {\n          status\n          expiresInDays\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventOrganisations {\n    organisations(size: 100) {\n      items {\n        id\n        name\n      }\n    }\n  }\n"): (typeof documents)["\n  query EventOrganisations {\n    organisations(size: 100) {\n      items {\n        id\n        name\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventObjects($eventUuid: String!, $page: Int) {\n    objects(eventUuid: $eventUuid, page: $page, size: 5, deleted: false) {\n      total\n      page\n      pages\n      items {\n        uuid\n        name\n        metaCategory\n        comment\n        attributes {\n          uuid\n          objectRelation\n          type\n          category\n          value\n          toIds\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query EventObjects($eventUuid: String!, $page: Int) {\n    objects(eventUuid: $eventUuid, page: $page, size: 5, deleted: false) {\n      total\n      page\n      pages\n      items {\n        uuid\n        name\n        metaCategory\n        comment\n        attributes {\n          uuid\n          objectRelation\n          type\n          category\n          value\n          toIds\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventRelated($uuid: String!, $limit: Int!) {\n    event(uuid: $uuid) {\n      uuid\n      relatedEvents(limit: $limit) {\n        uuid\n        info\n        date\n        correlationCount\n        org {\n          id\n          name\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query EventRelated($uuid: String!, $limit: Int!) {\n    event(uuid: $uuid) {\n      uuid\n      relatedEvents(limit: $limit) {\n        uuid\n        info\n        date\n        correlationCount\n        org {\n          id\n          name\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AttributeSightings($attributeUuid: String!, $page: Int) {\n    sightings(attributeUuid: $attributeUuid, page: $page, size: 10) {\n      total\n      page\n      pages\n      items {\n        uuid\n        type\n        source\n        timestamp\n        organisation\n      }\n    }\n  }\n"): (typeof documents)["\n  query AttributeSightings($attributeUuid: String!, $page: Int) {\n    sightings(attributeUuid: $attributeUuid, page: $page, size: 10) {\n      total\n      page\n      pages\n      items {\n        uuid\n        type\n        source\n        timestamp\n        organisation\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AddSighting($input: [SightingInput!]!) {\n    createSightings(input: $input) {\n      created\n    }\n  }\n"): (typeof documents)["\n  mutation AddSighting($input: [SightingInput!]!) {\n    createSightings(input: $input) {\n      created\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AttributeCatalogue {\n    attributeCategories {\n      name\n      types\n    }\n    attributeTypes {\n      name\n      defaultCategory\n      toIds\n    }\n  }\n"): (typeof documents)["\n  query AttributeCatalogue {\n    attributeCategories {\n      name\n      types\n    }\n    attributeTypes {\n      name\n      defaultCategory\n      toIds\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExploreSearchEvents($query: String!, $page: Int!, $size: Int!) {\n    searchEvents(query: $query, page: $page, size: $size) {\n      page\n      size\n      total\n      totalRelation\n      hits {\n        id\n        source\n      }\n    }\n  }\n"): (typeof documents)["\n  query ExploreSearchEvents($query: String!, $page: Int!, $size: Int!) {\n    searchEvents(query: $query, page: $page, size: $size) {\n      page\n      size\n      total\n      totalRelation\n      hits {\n        id\n        source\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExploreSearchAttributes($query: String!, $page: Int!, $size: Int!) {\n    searchAttributes(query: $query, page: $page, size: $size) {\n      page\n      size\n      total\n      totalRelation\n      hits {\n        id\n        source\n      }\n    }\n  }\n"): (typeof documents)["\n  query ExploreSearchAttributes($query: String!, $page: Int!, $size: Int!) {\n    searchAttributes(query: $query, page: $page, size: $size) {\n      page\n      size\n      total\n      totalRelation\n      hits {\n        id\n        source\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExploreExportUrl($target: ExploreExportTarget!, $query: String!) {\n    exploreExportUrl(target: $target, query: $query, format: JSON)\n  }\n"): (typeof documents)["\n  query ExploreExportUrl($target: ExploreExportTarget!, $query: String!) {\n    exploreExportUrl(target: $target, query: $query, format: JSON)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExploreSearchFields {\n    searchFields {\n      index\n      name\n      type\n    }\n  }\n"): (typeof documents)["\n  query ExploreSearchFields {\n    searchFields {\n      index\n      name\n      type\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExploreSavedSearches {\n    userSetting(namespace: \"explore\")\n  }\n"): (typeof documents)["\n  query ExploreSavedSearches {\n    userSetting(namespace: \"explore\")\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ExploreSetSavedSearches($value: JSON!) {\n    setUserSetting(namespace: \"explore\", value: $value)\n  }\n"): (typeof documents)["\n  mutation ExploreSetSavedSearches($value: JSON!) {\n    setUserSetting(namespace: \"explore\", value: $value)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExploreSearchHistogram($index: ExploreIndex!, $query: String!, $from: String, $to: String) {\n    searchHistogram(index: $index, query: $query, from: $from, to: $to) {\n      index\n      interval\n      from\n      to\n      total\n      buckets {\n        start\n        count\n      }\n    }\n  }\n"): (typeof documents)["\n  query ExploreSearchHistogram($index: ExploreIndex!, $query: String!, $from: String, $to: String) {\n    searchHistogram(index: $index, query: $query, from: $from, to: $to) {\n      index\n      interval\n      from\n      to\n      total\n      buckets {\n        start\n        count\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExploreLookupIndicators($values: [String!]!) {\n    lookupIndicators(values: $values) {\n      input\n      value\n      detectedType\n      found\n      count\n      eventCount\n      types\n      firstSeen\n      lastSeen\n      events {\n        uuid\n        info\n        organisation\n      }\n    }\n  }\n"): (typeof documents)["\n  query ExploreLookupIndicators($values: [String!]!) {\n    lookupIndicators(values: $values) {\n      input\n      value\n      detectedType\n      found\n      count\n      eventCount\n      types\n      firstSeen\n      lastSeen\n      events {\n        uuid\n        info\n        organisation\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateFeed($id: Int!, $feed: FeedFields!) {\n    updateFeed(id: $id, feed: $feed) {\n      id\n      enabled\n      url\n      settings\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateFeed($id: Int!, $feed: FeedFields!) {\n    updateFeed(id: $id, feed: $feed) {\n      id\n      enabled\n      url\n      settings\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteFeed($id: Int!) {\n    deleteFeed(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeleteFeed($id: Int!) {\n    deleteFeed(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Feed($id: Int!, $runsPage: Int!, $runsSize: Int!, $withRuns: Boolean!) {\n    feed(id: $id) {\n      id\n      name\n      provider\n      url\n      sourceFormat\n      inputSource\n      enabled\n      distribution\n      fixedEvent\n      eventUuid\n      publish\n      overrideIds\n      skipWarninglisted\n      tags\n      settings\n      lastFetchedAt\n      createdAt\n      runs(page: $runsPage, size: $runsSize) @include(if: $withRuns) {\n        total\n        page\n        pages\n        items {\n          id\n          status\n          trigger\n          queuedAt\n          finishedAt\n          result\n          lastError\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Feed($id: Int!, $runsPage: Int!, $runsSize: Int!, $withRuns: Boolean!) {\n    feed(id: $id) {\n      id\n      name\n      provider\n      url\n      sourceFormat\n      inputSource\n      enabled\n      distribution\n      fixedEvent\n      eventUuid\n      publish\n      overrideIds\n      skipWarninglisted\n      tags\n      settings\n      lastFetchedAt\n      createdAt\n      runs(page: $runsPage, size: $runsSize) @include(if: $withRuns) {\n        total\n        page\n        pages\n        items {\n          id\n          status\n          trigger\n          queuedAt\n          finishedAt\n          result\n          lastError\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation FetchFeed($id: Int!) {\n    fetchFeed(id: $id) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation FetchFeed($id: Int!) {\n    fetchFeed(id: $id) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query FeedPreview($format: FeedPreviewFormat!, $inputSource: FeedInputSource!, $url: String!, $settings: JSON) {\n    feedPreview(format: $format, inputSource: $inputSource, url: $url, settings: $settings, limit: 20) {\n      where\n      value\n      type\n      error\n    }\n  }\n"): (typeof documents)["\n  query FeedPreview($format: FeedPreviewFormat!, $inputSource: FeedInputSource!, $url: String!, $settings: JSON) {\n    feedPreview(format: $format, inputSource: $inputSource, url: $url, settings: $settings, limit: 20) {\n      where\n      value\n      type\n      error\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query FeedManifest($id: Int!, $page: Int!) {\n    feedExplore(id: $id, page: $page, size: 20) {\n      total\n      page\n      pages\n      items {\n        uuid\n        entry\n      }\n    }\n  }\n"): (typeof documents)["\n  query FeedManifest($id: Int!, $page: Int!) {\n    feedExplore(id: $id, page: $page, size: 20) {\n      total\n      page\n      pages\n      items {\n        uuid\n        entry\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Feeds($page: Int!, $size: Int!) {\n    feeds(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        provider\n        sourceFormat\n        inputSource\n        enabled\n        lastFetchedAt\n      }\n    }\n  }\n"): (typeof documents)["\n  query Feeds($page: Int!, $size: Int!) {\n    feeds(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        provider\n        sourceFormat\n        inputSource\n        enabled\n        lastFetchedAt\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateFeed($feed: FeedFields!) {\n    createFeed(feed: $feed) {\n      feed {\n        id\n      }\n      ingestion {\n        id\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation CreateFeed($feed: FeedFields!) {\n    createFeed(feed: $feed) {\n      feed {\n        id\n      }\n      ingestion {\n        id\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query FeedRun($id: String!) {\n    taskRun(id: $id) {\n      id\n      status\n      progress\n      result\n      lastError\n      startedAt\n      finishedAt\n    }\n  }\n"): (typeof documents)["\n  query FeedRun($id: String!) {\n    taskRun(id: $id) {\n      id\n      status\n      progress\n      result\n      lastError\n      startedAt\n      finishedAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AttackPatterns($filter: String) {\n    mitreAttackPatterns(filter: $filter) {\n      uuid\n      value\n      externalId\n    }\n  }\n"): (typeof documents)["\n  query AttackPatterns($filter: String) {\n    mitreAttackPatterns(filter: $filter) {\n      uuid\n      value\n      externalId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HuntToEdit($id: Int!) {\n    hunt(id: $id) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n    }\n  }\n"): (typeof documents)["\n  query HuntToEdit($id: Int!) {\n    hunt(id: $id) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateHunt($input: CreateHuntInput!) {\n    createHunt(input: $input) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation CreateHunt($input: CreateHuntInput!) {\n    createHunt(input: $input) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateHuntFields($id: Int!, $input: UpdateHuntInput!) {\n    updateHunt(id: $id, input: $input) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateHuntFields($id: Int!, $input: UpdateHuntInput!) {\n    updateHunt(id: $id, input: $input) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Hunt($id: Int!) {\n    hunt(id: $id) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n      schedule\n      cron\n      nextRunAt\n      lastRunAt\n      lastRunStatus\n      lastRunError\n      lastSuccessAt\n      lastMatchCount\n    }\n  }\n"): (typeof documents)["\n  query Hunt($id: Int!) {\n    hunt(id: $id) {\n      id\n      name\n      description\n      huntType\n      indexTarget\n      query\n      status\n      schedule\n      cron\n      nextRunAt\n      lastRunAt\n      lastRunStatus\n      lastRunError\n      lastSuccessAt\n      lastMatchCount\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HuntHistory($id: Int!, $page: Int!, $size: Int!) {\n    huntHistory(id: $id, page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        runAt\n        status\n        trigger\n        matchCount\n        newHitCount\n        durationMs\n        error\n      }\n    }\n  }\n"): (typeof documents)["\n  query HuntHistory($id: Int!, $page: Int!, $size: Int!) {\n    huntHistory(id: $id, page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        runAt\n        status\n        trigger\n        matchCount\n        newHitCount\n        durationMs\n        error\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RunHunt($id: Int!) {\n    runHunt(id: $id) {\n      total\n      runAt\n    }\n  }\n"): (typeof documents)["\n  mutation RunHunt($id: Int!) {\n    runHunt(id: $id) {\n      total\n      runAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetHuntStatus($id: Int!, $status: HuntStatus!) {\n    updateHunt(id: $id, input: { status: $status }) {\n      id\n      status\n      nextRunAt\n    }\n  }\n"): (typeof documents)["\n  mutation SetHuntStatus($id: Int!, $status: HuntStatus!) {\n    updateHunt(id: $id, input: { status: $status }) {\n      id\n      status\n      nextRunAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClearHuntHistory($id: Int!) {\n    clearHuntHistory(id: $id)\n  }\n"): (typeof documents)["\n  mutation ClearHuntHistory($id: Int!) {\n    clearHuntHistory(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteHunt($id: Int!) {\n    deleteHunt(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeleteHunt($id: Int!) {\n    deleteHunt(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HuntResultsPage($id: Int!, $page: Int!, $size: Int!) {\n    huntResults(id: $id, page: $page, size: $size) {\n      total\n      hitCount\n      runAt\n      hits {\n        __typename\n        ... on HuntDocumentHit {\n          uuid\n          docKind\n          isNew\n          document\n        }\n        ... on HuntCveHit {\n          cveId\n          severity\n          description\n          isNew\n        }\n        ... on HuntRuleHit {\n          title\n          detailUrl\n          isNew\n          rule\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query HuntResultsPage($id: Int!, $page: Int!, $size: Int!) {\n    huntResults(id: $id, page: $page, size: $size) {\n      total\n      hitCount\n      runAt\n      hits {\n        __typename\n        ... on HuntDocumentHit {\n          uuid\n          docKind\n          isNew\n          document\n        }\n        ... on HuntCveHit {\n          cveId\n          severity\n          description\n          isNew\n        }\n        ... on HuntRuleHit {\n          title\n          detailUrl\n          isNew\n          rule\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Hunts($page: Int!, $size: Int!, $filter: String) {\n    hunts(page: $page, size: $size, filter: $filter) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        huntType\n        status\n        lastRunAt\n        lastRunStatus\n        lastMatchCount\n        schedule\n        nextRunAt\n      }\n    }\n  }\n"): (typeof documents)["\n  query Hunts($page: Int!, $size: Int!, $filter: String) {\n    hunts(page: $page, size: $size, filter: $filter) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        huntType\n        status\n        lastRunAt\n        lastRunStatus\n        lastMatchCount\n        schedule\n        nextRunAt\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetHuntSchedule($id: Int!, $input: UpdateHuntInput!) {\n    updateHunt(id: $id, input: $input) {\n      id\n      schedule\n      cron\n      scheduledTaskId\n      nextRunAt\n    }\n  }\n"): (typeof documents)["\n  mutation SetHuntSchedule($id: Int!, $input: UpdateHuntInput!) {\n    updateHunt(id: $id, input: $input) {\n      id\n      schedule\n      cron\n      scheduledTaskId\n      nextRunAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Notifications($page: Int!, $size: Int!, $type: String, $read: Boolean, $filter: String) {\n    notifications(page: $page, size: $size, type: $type, read: $read, filter: $filter) {\n      total\n      page\n      pages\n      items {\n        id\n        type\n        read\n        createdAt\n        entityType\n        entityUuid\n        payload {\n          __typename\n          ... on HuntNotificationPayload {\n            huntId\n            huntName\n            total\n            previousTotal\n            newHitCount\n          }\n          ... on EventNotificationPayload {\n            eventName\n            eventUuid\n            organisationName\n          }\n          ... on AttributeNotificationPayload {\n            attributeType\n            attributeValue\n            eventTitle\n            eventUuid\n          }\n          ... on ObjectNotificationPayload {\n            objectName\n            eventTitle\n            eventUuid\n          }\n          ... on SightingNotificationPayload {\n            sightingType\n            sightingValue\n            attributeType\n            organisation\n            eventUuid\n          }\n          ... on CorrelationNotificationPayload {\n            value\n            targetAttributeType\n            targetAttributeValue\n            targetEventUuid\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Notifications($page: Int!, $size: Int!, $type: String, $read: Boolean, $filter: String) {\n    notifications(page: $page, size: $size, type: $type, read: $read, filter: $filter) {\n      total\n      page\n      pages\n      items {\n        id\n        type\n        read\n        createdAt\n        entityType\n        entityUuid\n        payload {\n          __typename\n          ... on HuntNotificationPayload {\n            huntId\n            huntName\n            total\n            previousTotal\n            newHitCount\n          }\n          ... on EventNotificationPayload {\n            eventName\n            eventUuid\n            organisationName\n          }\n          ... on AttributeNotificationPayload {\n            attributeType\n            attributeValue\n            eventTitle\n            eventUuid\n          }\n          ... on ObjectNotificationPayload {\n            objectName\n            eventTitle\n            eventUuid\n          }\n          ... on SightingNotificationPayload {\n            sightingType\n            sightingValue\n            attributeType\n            organisation\n            eventUuid\n          }\n          ... on CorrelationNotificationPayload {\n            value\n            targetAttributeType\n            targetAttributeValue\n            targetEventUuid\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription NotificationArrived {\n    notificationCreated {\n      id\n    }\n  }\n"): (typeof documents)["\n  subscription NotificationArrived {\n    notificationCreated {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MarkNotificationRead($id: String!) {\n    markNotificationRead(id: $id)\n  }\n"): (typeof documents)["\n  mutation MarkNotificationRead($id: String!) {\n    markNotificationRead(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteNotification($id: String!) {\n    deleteNotification(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeleteNotification($id: String!) {\n    deleteNotification(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UnfollowNotification($id: Int!) {\n    unfollowNotification(id: $id)\n  }\n"): (typeof documents)["\n  mutation UnfollowNotification($id: Int!) {\n    unfollowNotification(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NotificationSettings {\n    userSetting(namespace: \"notifications\")\n  }\n"): (typeof documents)["\n  query NotificationSettings {\n    userSetting(namespace: \"notifications\")\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SaveNotificationSettings($value: JSON!) {\n    setUserSetting(namespace: \"notifications\", value: $value)\n  }\n"): (typeof documents)["\n  mutation SaveNotificationSettings($value: JSON!) {\n    setUserSetting(namespace: \"notifications\", value: $value)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApiKeys($page: Int!, $size: Int!) {\n    apiKeyPage(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        comment\n        scopes\n        disabled\n        adminDisabled\n        expiresAt\n        lastUsedAt\n        createdAt\n      }\n    }\n    scopes {\n      name\n      description\n    }\n  }\n"): (typeof documents)["\n  query ApiKeys($page: Int!, $size: Int!) {\n    apiKeyPage(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        comment\n        scopes\n        disabled\n        adminDisabled\n        expiresAt\n        lastUsedAt\n        createdAt\n      }\n    }\n    scopes {\n      name\n      description\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateApiKey($input: CreateApiKeyInput!) {\n    createApiKey(input: $input) {\n      token\n      apiKey {\n        id\n        name\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation CreateApiKey($input: CreateApiKeyInput!) {\n    createApiKey(input: $input) {\n      token\n      apiKey {\n        id\n        name\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetApiKeyDisabled($id: Int!, $disabled: Boolean!) {\n    setApiKeyDisabled(id: $id, disabled: $disabled) {\n      id\n      disabled\n    }\n  }\n"): (typeof documents)["\n  mutation SetApiKeyDisabled($id: Int!, $disabled: Boolean!) {\n    setApiKeyDisabled(id: $id, disabled: $disabled) {\n      id\n      disabled\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteApiKey($id: Int!) {\n    deleteApiKey(id: $id)\n  }\n"): (typeof documents)["\n  mutation DeleteApiKey($id: Int!) {\n    deleteApiKey(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Follows {\n    userSetting(namespace: \"notifications\")\n  }\n"): (typeof documents)["\n  query Follows {\n    userSetting(namespace: \"notifications\")\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Unfollow($list: FollowList!, $uuid: String!) {\n    unfollow(list: $list, uuid: $uuid)\n  }\n"): (typeof documents)["\n  mutation Unfollow($list: FollowList!, $uuid: String!) {\n    unfollow(list: $list, uuid: $uuid)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RetentionSettings {\n    runtimeSetting(namespace: \"retention\")\n  }\n"): (typeof documents)["\n  query RetentionSettings {\n    runtimeSetting(namespace: \"retention\")\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RetentionPreview($periodDays: Int!) {\n    retentionPreview(periodDays: $periodDays) {\n      count\n      periodDays\n    }\n  }\n"): (typeof documents)["\n  query RetentionPreview($periodDays: Int!) {\n    retentionPreview(periodDays: $periodDays) {\n      count\n      periodDays\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SaveRetention($value: JSON!) {\n    setRuntimeSetting(namespace: \"retention\", value: $value)\n  }\n"): (typeof documents)["\n  mutation SaveRetention($value: JSON!) {\n    setRuntimeSetting(namespace: \"retention\", value: $value)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ScheduledTasks($page: Int!, $size: Int!) {\n    scheduledTasks(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        task\n        enabled\n        dueAt\n        lastRunAt\n        lastRunStatus\n        schedule {\n          description\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ScheduledTasks($page: Int!, $size: Int!) {\n    scheduledTasks(page: $page, size: $size) {\n      total\n      page\n      pages\n      items {\n        id\n        name\n        task\n        enabled\n        dueAt\n        lastRunAt\n        lastRunStatus\n        schedule {\n          description\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TaskRuns($page: Int!, $size: Int!, $scheduledTaskId: String, $status: TaskRunStatus) {\n    taskRuns(page: $page, size: $size, scheduledTaskId: $scheduledTaskId, status: $status) {\n      total\n      page\n      pages\n      items {\n        id\n        task\n        status\n        trigger\n        queuedAt\n        finishedAt\n        lastError\n        attempts\n      }\n    }\n  }\n"): (typeof documents)["\n  query TaskRuns($page: Int!, $size: Int!, $scheduledTaskId: String, $status: TaskRunStatus) {\n    taskRuns(page: $page, size: $size, scheduledTaskId: $scheduledTaskId, status: $status) {\n      total\n      page\n      pages\n      items {\n        id\n        task\n        status\n        trigger\n        queuedAt\n        finishedAt\n        lastError\n        attempts\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetScheduledTaskEnabled($id: String!, $enabled: Boolean!) {\n    updateScheduledTask(id: $id, enabled: $enabled) {\n      id\n      enabled\n      dueAt\n    }\n  }\n"): (typeof documents)["\n  mutation SetScheduledTaskEnabled($id: String!, $enabled: Boolean!) {\n    updateScheduledTask(id: $id, enabled: $enabled) {\n      id\n      enabled\n      dueAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RunScheduledTask($id: String!) {\n    runScheduledTask(id: $id) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation RunScheduledTask($id: String!) {\n    runScheduledTask(id: $id) {\n      id\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;
// Generated from the official OCPP 1.6J JSON schemas (ocpp-rpc/lib/schemas/ocpp1_6.json) by
// src/modules/hub/ocpp/generate-types.ts: do not edit; run `npm run ocpp-types`.

/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "HashAlgorithmEnumType".
 */
export type HashAlgorithmEnumType = 'SHA256' | 'SHA384' | 'SHA512';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "CertificateSignedStatusEnumType".
 */
export type CertificateSignedStatusEnumType = 'Accepted' | 'Rejected';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "CertificateUseEnumType".
 */
export type CertificateUseEnumType = 'CentralSystemRootCertificate' | 'ManufacturerRootCertificate';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "DeleteCertificateStatusEnumType".
 */
export type DeleteCertificateStatusEnumType = 'Accepted' | 'Failed' | 'NotFound';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "MessageTriggerEnumType".
 */
export type MessageTriggerEnumType =
  | 'BootNotification'
  | 'LogStatusNotification'
  | 'FirmwareStatusNotification'
  | 'Heartbeat'
  | 'MeterValues'
  | 'SignChargePointCertificate'
  | 'StatusNotification';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "TriggerMessageStatusEnumType".
 */
export type TriggerMessageStatusEnumType = 'Accepted' | 'Rejected' | 'NotImplemented';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "FirmwareStatusEnumType".
 */
export type FirmwareStatusEnumType =
  | 'Downloaded'
  | 'DownloadFailed'
  | 'Downloading'
  | 'DownloadScheduled'
  | 'DownloadPaused'
  | 'Idle'
  | 'InstallationFailed'
  | 'Installing'
  | 'Installed'
  | 'InstallRebooting'
  | 'InstallScheduled'
  | 'InstallVerificationFailed'
  | 'InvalidSignature'
  | 'SignatureVerified';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GenericStatusEnumType".
 */
export type GenericStatusEnumType = 'Accepted' | 'Rejected';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetInstalledCertificateStatusEnumType".
 */
export type GetInstalledCertificateStatusEnumType = 'Accepted' | 'NotFound';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "LogEnumType".
 */
export type LogEnumType = 'DiagnosticsLog' | 'SecurityLog';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "LogStatusEnumType".
 */
export type LogStatusEnumType = 'Accepted' | 'Rejected' | 'AcceptedCanceled';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "InstallCertificateStatusEnumType".
 */
export type InstallCertificateStatusEnumType = 'Accepted' | 'Failed' | 'Rejected';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "UploadLogStatusEnumType".
 */
export type UploadLogStatusEnumType = 'BadMessage' | 'Idle' | 'NotSupportedOperation' | 'PermissionDenied' | 'Uploaded' | 'UploadFailure' | 'Uploading';
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "UpdateFirmwareStatusEnumType".
 */
export type UpdateFirmwareStatusEnumType = 'Accepted' | 'Rejected' | 'AcceptedCanceled' | 'InvalidCertificate' | 'RevokedCertificate';

/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "AuthorizeRequest".
 */
export interface AuthorizeRequest {
  idTag: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "AuthorizeResponse".
 */
export interface AuthorizeResponse {
  idTagInfo: IdTagInfo;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "IdTagInfo".
 */
export interface IdTagInfo {
  expiryDate?: string;
  parentIdTag?: string;
  status: 'Accepted' | 'Blocked' | 'Expired' | 'Invalid' | 'ConcurrentTx';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "BootNotificationRequest".
 */
export interface BootNotificationRequest {
  chargePointVendor: string;
  chargePointModel: string;
  chargePointSerialNumber?: string;
  chargeBoxSerialNumber?: string;
  firmwareVersion?: string;
  iccid?: string;
  imsi?: string;
  meterType?: string;
  meterSerialNumber?: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "BootNotificationResponse".
 */
export interface BootNotificationResponse {
  status: 'Accepted' | 'Pending' | 'Rejected';
  currentTime: string;
  interval: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "CancelReservationRequest".
 */
export interface CancelReservationRequest {
  reservationId: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "CancelReservationResponse".
 */
export interface CancelReservationResponse {
  status: 'Accepted' | 'Rejected';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "CertificateHashDataType".
 */
export interface CertificateHashDataType {
  hashAlgorithm: HashAlgorithmEnumType;
  issuerNameHash: string;
  issuerKeyHash: string;
  serialNumber: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "CertificateSignedRequest".
 */
export interface CertificateSignedRequest {
  certificateChain: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "CertificateSignedResponse".
 */
export interface CertificateSignedResponse {
  status: CertificateSignedStatusEnumType;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ChangeAvailabilityRequest".
 */
export interface ChangeAvailabilityRequest {
  connectorId: number;
  type: 'Inoperative' | 'Operative';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ChangeAvailabilityResponse".
 */
export interface ChangeAvailabilityResponse {
  status: 'Accepted' | 'Rejected' | 'Scheduled';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ChangeConfigurationRequest".
 */
export interface ChangeConfigurationRequest {
  key: string;
  value: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ChangeConfigurationResponse".
 */
export interface ChangeConfigurationResponse {
  status: 'Accepted' | 'Rejected' | 'RebootRequired' | 'NotSupported';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ChargingProfile".
 */
export interface ChargingProfile {
  chargingProfileId: number;
  transactionId?: number;
  stackLevel: number;
  chargingProfilePurpose: 'ChargePointMaxProfile' | 'TxDefaultProfile' | 'TxProfile';
  chargingProfileKind: 'Absolute' | 'Recurring' | 'Relative';
  recurrencyKind?: 'Daily' | 'Weekly';
  validFrom?: string;
  validTo?: string;
  chargingSchedule: ChargingSchedule;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ChargingSchedule".
 */
export interface ChargingSchedule {
  duration?: number;
  startSchedule?: string;
  chargingRateUnit: 'A' | 'W';
  chargingSchedulePeriod: {
    startPeriod: number;
    limit: number;
    numberPhases?: number;
  }[];
  minChargingRate?: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ClearCacheRequest".
 */
export interface ClearCacheRequest {}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ClearCacheResponse".
 */
export interface ClearCacheResponse {
  status: 'Accepted' | 'Rejected';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ClearChargingProfileRequest".
 */
export interface ClearChargingProfileRequest {
  id?: number;
  connectorId?: number;
  chargingProfilePurpose?: 'ChargePointMaxProfile' | 'TxDefaultProfile' | 'TxProfile';
  stackLevel?: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ClearChargingProfileResponse".
 */
export interface ClearChargingProfileResponse {
  status: 'Accepted' | 'Unknown';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "DataTransferRequest".
 */
export interface DataTransferRequest {
  vendorId: string;
  messageId?: string;
  data?: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "DataTransferResponse".
 */
export interface DataTransferResponse {
  status: 'Accepted' | 'Rejected' | 'UnknownMessageId' | 'UnknownVendorId';
  data?: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "DeleteCertificateRequest".
 */
export interface DeleteCertificateRequest {
  certificateHashData: CertificateHashDataType;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "DeleteCertificateResponse".
 */
export interface DeleteCertificateResponse {
  status: DeleteCertificateStatusEnumType;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "DiagnosticsStatusNotificationRequest".
 */
export interface DiagnosticsStatusNotificationRequest {
  status: 'Idle' | 'Uploaded' | 'UploadFailed' | 'Uploading';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "DiagnosticsStatusNotificationResponse".
 */
export interface DiagnosticsStatusNotificationResponse {}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ExtendedTriggerMessageRequest".
 */
export interface ExtendedTriggerMessageRequest {
  requestedMessage: MessageTriggerEnumType;
  connectorId?: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ExtendedTriggerMessageResponse".
 */
export interface ExtendedTriggerMessageResponse {
  status: TriggerMessageStatusEnumType;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "FirmwareStatusNotificationRequest".
 */
export interface FirmwareStatusNotificationRequest {
  status: 'Downloaded' | 'DownloadFailed' | 'Downloading' | 'Idle' | 'InstallationFailed' | 'Installing' | 'Installed';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "FirmwareStatusNotificationResponse".
 */
export interface FirmwareStatusNotificationResponse {}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "FirmwareType".
 */
export interface FirmwareType {
  location: string;
  retrieveDateTime: string;
  installDateTime?: string;
  signingCertificate: string;
  signature: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetCompositeScheduleRequest".
 */
export interface GetCompositeScheduleRequest {
  connectorId: number;
  duration: number;
  chargingRateUnit?: 'A' | 'W';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetCompositeScheduleResponse".
 */
export interface GetCompositeScheduleResponse {
  status: 'Accepted' | 'Rejected';
  connectorId?: number;
  scheduleStart?: string;
  chargingSchedule?: ChargingSchedule;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetConfigurationRequest".
 */
export interface GetConfigurationRequest {
  key?: string[];
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetConfigurationResponse".
 */
export interface GetConfigurationResponse {
  configurationKey?: {
    key: string;
    readonly: boolean;
    value?: string;
  }[];
  unknownKey?: string[];
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetDiagnosticsRequest".
 */
export interface GetDiagnosticsRequest {
  location: string;
  retries?: number;
  retryInterval?: number;
  startTime?: string;
  stopTime?: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetDiagnosticsResponse".
 */
export interface GetDiagnosticsResponse {
  fileName?: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetInstalledCertificateIdsRequest".
 */
export interface GetInstalledCertificateIdsRequest {
  certificateType: CertificateUseEnumType;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetInstalledCertificateIdsResponse".
 */
export interface GetInstalledCertificateIdsResponse {
  /**
   * @minItems 1
   */
  certificateHashData?: [CertificateHashDataType, ...CertificateHashDataType[]];
  status: GetInstalledCertificateStatusEnumType;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetLocalListVersionRequest".
 */
export interface GetLocalListVersionRequest {}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetLocalListVersionResponse".
 */
export interface GetLocalListVersionResponse {
  listVersion: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetLogRequest".
 */
export interface GetLogRequest {
  log: LogParametersType;
  logType: LogEnumType;
  requestId: number;
  retries?: number;
  retryInterval?: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "LogParametersType".
 */
export interface LogParametersType {
  remoteLocation: string;
  oldestTimestamp?: string;
  latestTimestamp?: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "GetLogResponse".
 */
export interface GetLogResponse {
  status: LogStatusEnumType;
  filename?: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "HeartbeatRequest".
 */
export interface HeartbeatRequest {}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "HeartbeatResponse".
 */
export interface HeartbeatResponse {
  currentTime: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "InstallCertificateRequest".
 */
export interface InstallCertificateRequest {
  certificateType: CertificateUseEnumType;
  certificate: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "InstallCertificateResponse".
 */
export interface InstallCertificateResponse {
  status: InstallCertificateStatusEnumType;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "LogStatusNotificationRequest".
 */
export interface LogStatusNotificationRequest {
  status: UploadLogStatusEnumType;
  requestId?: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "LogStatusNotificationResponse".
 */
export interface LogStatusNotificationResponse {}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "MeterValue".
 */
export interface MeterValue {
  timestamp: string;
  sampledValue: {
    value: string;
    context?: 'Interruption.Begin' | 'Interruption.End' | 'Sample.Clock' | 'Sample.Periodic' | 'Transaction.Begin' | 'Transaction.End' | 'Trigger' | 'Other';
    format?: 'Raw' | 'SignedData';
    measurand?:
      | 'Energy.Active.Export.Register'
      | 'Energy.Active.Import.Register'
      | 'Energy.Reactive.Export.Register'
      | 'Energy.Reactive.Import.Register'
      | 'Energy.Active.Export.Interval'
      | 'Energy.Active.Import.Interval'
      | 'Energy.Reactive.Export.Interval'
      | 'Energy.Reactive.Import.Interval'
      | 'Power.Active.Export'
      | 'Power.Active.Import'
      | 'Power.Offered'
      | 'Power.Reactive.Export'
      | 'Power.Reactive.Import'
      | 'Power.Factor'
      | 'Current.Import'
      | 'Current.Export'
      | 'Current.Offered'
      | 'Voltage'
      | 'Frequency'
      | 'Temperature'
      | 'SoC'
      | 'RPM';
    phase?: 'L1' | 'L2' | 'L3' | 'N' | 'L1-N' | 'L2-N' | 'L3-N' | 'L1-L2' | 'L2-L3' | 'L3-L1';
    location?: 'Cable' | 'EV' | 'Inlet' | 'Outlet' | 'Body';
    unit?: 'Wh' | 'kWh' | 'varh' | 'kvarh' | 'W' | 'kW' | 'VA' | 'kVA' | 'var' | 'kvar' | 'A' | 'V' | 'K' | 'Celcius' | 'Celsius' | 'Fahrenheit' | 'Percent';
  }[];
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "MeterValuesRequest".
 */
export interface MeterValuesRequest {
  connectorId: number;
  transactionId?: number;
  meterValue: MeterValue[];
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "MeterValuesResponse".
 */
export interface MeterValuesResponse {}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "RemoteStartTransactionRequest".
 */
export interface RemoteStartTransactionRequest {
  connectorId?: number;
  idTag: string;
  chargingProfile?: ChargingProfile;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "RemoteStartTransactionResponse".
 */
export interface RemoteStartTransactionResponse {
  status: 'Accepted' | 'Rejected';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "RemoteStopTransactionRequest".
 */
export interface RemoteStopTransactionRequest {
  transactionId: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "RemoteStopTransactionResponse".
 */
export interface RemoteStopTransactionResponse {
  status: 'Accepted' | 'Rejected';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ReserveNowRequest".
 */
export interface ReserveNowRequest {
  connectorId: number;
  expiryDate: string;
  idTag: string;
  parentIdTag?: string;
  reservationId: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ReserveNowResponse".
 */
export interface ReserveNowResponse {
  status: 'Accepted' | 'Faulted' | 'Occupied' | 'Rejected' | 'Unavailable';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ResetRequest".
 */
export interface ResetRequest {
  type: 'Hard' | 'Soft';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "ResetResponse".
 */
export interface ResetResponse {
  status: 'Accepted' | 'Rejected';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SecurityEventNotificationRequest".
 */
export interface SecurityEventNotificationRequest {
  type: string;
  timestamp: string;
  techInfo?: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SecurityEventNotificationResponse".
 */
export interface SecurityEventNotificationResponse {}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SendLocalListRequest".
 */
export interface SendLocalListRequest {
  listVersion: number;
  localAuthorizationList?: {
    idTag: string;
    idTagInfo?: IdTagInfo;
  }[];
  updateType: 'Differential' | 'Full';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SendLocalListResponse".
 */
export interface SendLocalListResponse {
  status: 'Accepted' | 'Failed' | 'NotSupported' | 'VersionMismatch';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SetChargingProfileRequest".
 */
export interface SetChargingProfileRequest {
  connectorId: number;
  csChargingProfiles: ChargingProfile;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SetChargingProfileResponse".
 */
export interface SetChargingProfileResponse {
  status: 'Accepted' | 'Rejected' | 'NotSupported';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SignCertificateRequest".
 */
export interface SignCertificateRequest {
  csr: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SignCertificateResponse".
 */
export interface SignCertificateResponse {
  status: GenericStatusEnumType;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SignedFirmwareStatusNotificationRequest".
 */
export interface SignedFirmwareStatusNotificationRequest {
  status: FirmwareStatusEnumType;
  requestId?: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SignedFirmwareStatusNotificationResponse".
 */
export interface SignedFirmwareStatusNotificationResponse {}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SignedUpdateFirmwareRequest".
 */
export interface SignedUpdateFirmwareRequest {
  retries?: number;
  retryInterval?: number;
  requestId: number;
  firmware: FirmwareType;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "SignedUpdateFirmwareResponse".
 */
export interface SignedUpdateFirmwareResponse {
  status: UpdateFirmwareStatusEnumType;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "StartTransactionRequest".
 */
export interface StartTransactionRequest {
  connectorId: number;
  idTag: string;
  meterStart: number;
  reservationId?: number;
  timestamp: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "StartTransactionResponse".
 */
export interface StartTransactionResponse {
  idTagInfo: IdTagInfo;
  transactionId: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "StatusNotificationRequest".
 */
export interface StatusNotificationRequest {
  connectorId: number;
  errorCode:
    | 'ConnectorLockFailure'
    | 'EVCommunicationError'
    | 'GroundFailure'
    | 'HighTemperature'
    | 'InternalError'
    | 'LocalListConflict'
    | 'NoError'
    | 'OtherError'
    | 'OverCurrentFailure'
    | 'PowerMeterFailure'
    | 'PowerSwitchFailure'
    | 'ReaderFailure'
    | 'ResetFailure'
    | 'UnderVoltage'
    | 'OverVoltage'
    | 'WeakSignal';
  info?: string;
  status: 'Available' | 'Preparing' | 'Charging' | 'SuspendedEVSE' | 'SuspendedEV' | 'Finishing' | 'Reserved' | 'Unavailable' | 'Faulted';
  timestamp?: string;
  vendorId?: string;
  vendorErrorCode?: string;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "StatusNotificationResponse".
 */
export interface StatusNotificationResponse {}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "StopTransactionRequest".
 */
export interface StopTransactionRequest {
  idTag?: string;
  meterStop: number;
  timestamp: string;
  transactionId: number;
  reason?:
    'EmergencyStop' | 'EVDisconnected' | 'HardReset' | 'Local' | 'Other' | 'PowerLoss' | 'Reboot' | 'Remote' | 'SoftReset' | 'UnlockCommand' | 'DeAuthorized';
  transactionData?: MeterValue[];
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "StopTransactionResponse".
 */
export interface StopTransactionResponse {
  idTagInfo?: IdTagInfo;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "TriggerMessageRequest".
 */
export interface TriggerMessageRequest {
  requestedMessage: 'BootNotification' | 'DiagnosticsStatusNotification' | 'FirmwareStatusNotification' | 'Heartbeat' | 'MeterValues' | 'StatusNotification';
  connectorId?: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "TriggerMessageResponse".
 */
export interface TriggerMessageResponse {
  status: 'Accepted' | 'Rejected' | 'NotImplemented';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "UnlockConnectorRequest".
 */
export interface UnlockConnectorRequest {
  connectorId: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "UnlockConnectorResponse".
 */
export interface UnlockConnectorResponse {
  status: 'Unlocked' | 'UnlockFailed' | 'NotSupported';
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "UpdateFirmwareRequest".
 */
export interface UpdateFirmwareRequest {
  location: string;
  retries?: number;
  retrieveDate: string;
  retryInterval?: number;
}
/**
 * This interface was referenced by `OcppSchemas`'s JSON-Schema
 * via the `definition` "UpdateFirmwareResponse".
 */
export interface UpdateFirmwareResponse {}

/** Every OCPP 1.6J action with its request and response. */
export interface Actions {
  Authorize: { request: AuthorizeRequest; response: AuthorizeResponse };
  BootNotification: { request: BootNotificationRequest; response: BootNotificationResponse };
  CancelReservation: { request: CancelReservationRequest; response: CancelReservationResponse };
  CertificateSigned: { request: CertificateSignedRequest; response: CertificateSignedResponse };
  ChangeAvailability: { request: ChangeAvailabilityRequest; response: ChangeAvailabilityResponse };
  ChangeConfiguration: { request: ChangeConfigurationRequest; response: ChangeConfigurationResponse };
  ClearCache: { request: ClearCacheRequest; response: ClearCacheResponse };
  ClearChargingProfile: { request: ClearChargingProfileRequest; response: ClearChargingProfileResponse };
  DataTransfer: { request: DataTransferRequest; response: DataTransferResponse };
  DeleteCertificate: { request: DeleteCertificateRequest; response: DeleteCertificateResponse };
  DiagnosticsStatusNotification: { request: DiagnosticsStatusNotificationRequest; response: DiagnosticsStatusNotificationResponse };
  ExtendedTriggerMessage: { request: ExtendedTriggerMessageRequest; response: ExtendedTriggerMessageResponse };
  FirmwareStatusNotification: { request: FirmwareStatusNotificationRequest; response: FirmwareStatusNotificationResponse };
  GetCompositeSchedule: { request: GetCompositeScheduleRequest; response: GetCompositeScheduleResponse };
  GetConfiguration: { request: GetConfigurationRequest; response: GetConfigurationResponse };
  GetDiagnostics: { request: GetDiagnosticsRequest; response: GetDiagnosticsResponse };
  GetInstalledCertificateIds: { request: GetInstalledCertificateIdsRequest; response: GetInstalledCertificateIdsResponse };
  GetLocalListVersion: { request: GetLocalListVersionRequest; response: GetLocalListVersionResponse };
  GetLog: { request: GetLogRequest; response: GetLogResponse };
  Heartbeat: { request: HeartbeatRequest; response: HeartbeatResponse };
  InstallCertificate: { request: InstallCertificateRequest; response: InstallCertificateResponse };
  LogStatusNotification: { request: LogStatusNotificationRequest; response: LogStatusNotificationResponse };
  MeterValues: { request: MeterValuesRequest; response: MeterValuesResponse };
  RemoteStartTransaction: { request: RemoteStartTransactionRequest; response: RemoteStartTransactionResponse };
  RemoteStopTransaction: { request: RemoteStopTransactionRequest; response: RemoteStopTransactionResponse };
  ReserveNow: { request: ReserveNowRequest; response: ReserveNowResponse };
  Reset: { request: ResetRequest; response: ResetResponse };
  SecurityEventNotification: { request: SecurityEventNotificationRequest; response: SecurityEventNotificationResponse };
  SendLocalList: { request: SendLocalListRequest; response: SendLocalListResponse };
  SetChargingProfile: { request: SetChargingProfileRequest; response: SetChargingProfileResponse };
  SignCertificate: { request: SignCertificateRequest; response: SignCertificateResponse };
  SignedFirmwareStatusNotification: { request: SignedFirmwareStatusNotificationRequest; response: SignedFirmwareStatusNotificationResponse };
  SignedUpdateFirmware: { request: SignedUpdateFirmwareRequest; response: SignedUpdateFirmwareResponse };
  StartTransaction: { request: StartTransactionRequest; response: StartTransactionResponse };
  StatusNotification: { request: StatusNotificationRequest; response: StatusNotificationResponse };
  StopTransaction: { request: StopTransactionRequest; response: StopTransactionResponse };
  TriggerMessage: { request: TriggerMessageRequest; response: TriggerMessageResponse };
  UnlockConnector: { request: UnlockConnectorRequest; response: UnlockConnectorResponse };
  UpdateFirmware: { request: UpdateFirmwareRequest; response: UpdateFirmwareResponse };
}

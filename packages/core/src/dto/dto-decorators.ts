// The class-validator decorators, each loading only its own module on first use (see
// class-validator.loader.ts). Generated from class-validator 0.15.1's cjs/decorator tree:
// 114 decorators, the same names the package index exports.
import type * as CV from 'class-validator';
import { lazyDecorator as lazy } from './class-validator.loader.js';

export const Allow: typeof CV.Allow = lazy('common/Allow', 'Allow');
export const ArrayContains: typeof CV.ArrayContains = lazy('array/ArrayContains', 'ArrayContains');
export const ArrayMaxSize: typeof CV.ArrayMaxSize = lazy('array/ArrayMaxSize', 'ArrayMaxSize');
export const ArrayMinSize: typeof CV.ArrayMinSize = lazy('array/ArrayMinSize', 'ArrayMinSize');
export const ArrayNotContains: typeof CV.ArrayNotContains = lazy(
  'array/ArrayNotContains',
  'ArrayNotContains',
);
export const ArrayNotEmpty: typeof CV.ArrayNotEmpty = lazy('array/ArrayNotEmpty', 'ArrayNotEmpty');
export const ArrayUnique: typeof CV.ArrayUnique = lazy('array/ArrayUnique', 'ArrayUnique');
export const Contains: typeof CV.Contains = lazy('string/Contains', 'Contains');
export const Equals: typeof CV.Equals = lazy('common/Equals', 'Equals');
export const IsAlpha: typeof CV.IsAlpha = lazy('string/IsAlpha', 'IsAlpha');
export const IsAlphanumeric: typeof CV.IsAlphanumeric = lazy('string/IsAlphanumeric', 'IsAlphanumeric');
export const IsArray: typeof CV.IsArray = lazy('typechecker/IsArray', 'IsArray');
export const IsAscii: typeof CV.IsAscii = lazy('string/IsAscii', 'IsAscii');
export const IsBase32: typeof CV.IsBase32 = lazy('string/IsBase32', 'IsBase32');
export const IsBase58: typeof CV.IsBase58 = lazy('string/IsBase58', 'IsBase58');
export const IsBase64: typeof CV.IsBase64 = lazy('string/IsBase64', 'IsBase64');
export const IsBIC: typeof CV.IsBIC = lazy('string/IsBIC', 'IsBIC');
export const IsBoolean: typeof CV.IsBoolean = lazy('typechecker/IsBoolean', 'IsBoolean');
export const IsBooleanString: typeof CV.IsBooleanString = lazy('string/IsBooleanString', 'IsBooleanString');
export const IsBtcAddress: typeof CV.IsBtcAddress = lazy('string/IsBtcAddress', 'IsBtcAddress');
export const IsByteLength: typeof CV.IsByteLength = lazy('string/IsByteLength', 'IsByteLength');
export const IsCreditCard: typeof CV.IsCreditCard = lazy('string/IsCreditCard', 'IsCreditCard');
export const IsCurrency: typeof CV.IsCurrency = lazy('string/IsCurrency', 'IsCurrency');
export const IsDataURI: typeof CV.IsDataURI = lazy('string/IsDataURI', 'IsDataURI');
export const IsDate: typeof CV.IsDate = lazy('typechecker/IsDate', 'IsDate');
export const IsDateString: typeof CV.IsDateString = lazy('string/IsDateString', 'IsDateString');
export const IsDecimal: typeof CV.IsDecimal = lazy('string/IsDecimal', 'IsDecimal');
export const IsDefined: typeof CV.IsDefined = lazy('common/IsDefined', 'IsDefined');
export const IsDivisibleBy: typeof CV.IsDivisibleBy = lazy('number/IsDivisibleBy', 'IsDivisibleBy');
export const IsEAN: typeof CV.IsEAN = lazy('string/IsEAN', 'IsEAN');
export const IsEmail: typeof CV.IsEmail = lazy('string/IsEmail', 'IsEmail');
export const IsEmpty: typeof CV.IsEmpty = lazy('common/IsEmpty', 'IsEmpty');
export const IsEnum: typeof CV.IsEnum = lazy('typechecker/IsEnum', 'IsEnum');
export const IsEthereumAddress: typeof CV.IsEthereumAddress = lazy(
  'string/IsEthereumAddress',
  'IsEthereumAddress',
);
export const IsFirebasePushId: typeof CV.IsFirebasePushId = lazy(
  'string/IsFirebasePushId',
  'IsFirebasePushId',
);
export const IsFQDN: typeof CV.IsFQDN = lazy('string/IsFQDN', 'IsFQDN');
export const IsFullWidth: typeof CV.IsFullWidth = lazy('string/IsFullWidth', 'IsFullWidth');
export const IsHalfWidth: typeof CV.IsHalfWidth = lazy('string/IsHalfWidth', 'IsHalfWidth');
export const IsHash: typeof CV.IsHash = lazy('string/IsHash', 'IsHash');
export const IsHexadecimal: typeof CV.IsHexadecimal = lazy('string/IsHexadecimal', 'IsHexadecimal');
export const IsHexColor: typeof CV.IsHexColor = lazy('string/IsHexColor', 'IsHexColor');
export const IsHSL: typeof CV.IsHSL = lazy('string/IsHSL', 'IsHSL');
export const IsIBAN: typeof CV.IsIBAN = lazy('string/IsIBAN', 'IsIBAN');
export const IsIdentityCard: typeof CV.IsIdentityCard = lazy('string/IsIdentityCard', 'IsIdentityCard');
export const IsIn: typeof CV.IsIn = lazy('common/IsIn', 'IsIn');
export const IsInstance: typeof CV.IsInstance = lazy('object/IsInstance', 'IsInstance');
export const IsInt: typeof CV.IsInt = lazy('typechecker/IsInt', 'IsInt');
export const IsIP: typeof CV.IsIP = lazy('string/IsIP', 'IsIP');
export const IsISBN: typeof CV.IsISBN = lazy('string/IsISBN', 'IsISBN');
export const IsISIN: typeof CV.IsISIN = lazy('string/IsISIN', 'IsISIN');
export const IsISO31661Alpha2: typeof CV.IsISO31661Alpha2 = lazy(
  'string/IsISO31661Alpha2',
  'IsISO31661Alpha2',
);
export const IsISO31661Alpha3: typeof CV.IsISO31661Alpha3 = lazy(
  'string/IsISO31661Alpha3',
  'IsISO31661Alpha3',
);
export const IsISO31661Numeric: typeof CV.IsISO31661Numeric = lazy(
  'string/IsISO31661Numeric',
  'IsISO31661Numeric',
);
export const IsISO4217CurrencyCode: typeof CV.IsISO4217CurrencyCode = lazy(
  'string/is-iso4217-currency-code',
  'IsISO4217CurrencyCode',
);
export const IsISO6391: typeof CV.IsISO6391 = lazy('string/isISO6391', 'IsISO6391');
export const IsISO8601: typeof CV.IsISO8601 = lazy('string/IsISO8601', 'IsISO8601');
export const IsISRC: typeof CV.IsISRC = lazy('string/IsISRC', 'IsISRC');
export const IsISSN: typeof CV.IsISSN = lazy('string/IsISSN', 'IsISSN');
export const IsJSON: typeof CV.IsJSON = lazy('string/IsJSON', 'IsJSON');
export const IsJWT: typeof CV.IsJWT = lazy('string/IsJWT', 'IsJWT');
export const IsLatitude: typeof CV.IsLatitude = lazy('common/IsLatitude', 'IsLatitude');
export const IsLatLong: typeof CV.IsLatLong = lazy('common/IsLatLong', 'IsLatLong');
export const IsLocale: typeof CV.IsLocale = lazy('string/IsLocale', 'IsLocale');
export const IsLongitude: typeof CV.IsLongitude = lazy('common/IsLongitude', 'IsLongitude');
export const IsLowercase: typeof CV.IsLowercase = lazy('string/IsLowercase', 'IsLowercase');
export const IsMACAddress: typeof CV.IsMACAddress = lazy('string/IsMacAddress', 'IsMACAddress');
export const IsMagnetURI: typeof CV.IsMagnetURI = lazy('string/IsMagnetURI', 'IsMagnetURI');
export const IsMilitaryTime: typeof CV.IsMilitaryTime = lazy('string/IsMilitaryTime', 'IsMilitaryTime');
export const IsMimeType: typeof CV.IsMimeType = lazy('string/IsMimeType', 'IsMimeType');
export const IsMobilePhone: typeof CV.IsMobilePhone = lazy('string/IsMobilePhone', 'IsMobilePhone');
export const IsMongoId: typeof CV.IsMongoId = lazy('string/IsMongoId', 'IsMongoId');
export const IsMultibyte: typeof CV.IsMultibyte = lazy('string/IsMultibyte', 'IsMultibyte');
export const IsNegative: typeof CV.IsNegative = lazy('number/IsNegative', 'IsNegative');
export const IsNotEmpty: typeof CV.IsNotEmpty = lazy('common/IsNotEmpty', 'IsNotEmpty');
export const IsNotEmptyObject: typeof CV.IsNotEmptyObject = lazy(
  'object/IsNotEmptyObject',
  'IsNotEmptyObject',
);
export const IsNotIn: typeof CV.IsNotIn = lazy('common/IsNotIn', 'IsNotIn');
export const IsNumber: typeof CV.IsNumber = lazy('typechecker/IsNumber', 'IsNumber');
export const IsNumberString: typeof CV.IsNumberString = lazy('string/IsNumberString', 'IsNumberString');
export const IsObject: typeof CV.IsObject = lazy('typechecker/IsObject', 'IsObject');
export const IsOctal: typeof CV.IsOctal = lazy('string/IsOctal', 'IsOctal');
export const IsOptional: typeof CV.IsOptional = lazy('common/IsOptional', 'IsOptional');
export const IsPassportNumber: typeof CV.IsPassportNumber = lazy(
  'string/IsPassportNumber',
  'IsPassportNumber',
);
export const IsPhoneNumber: typeof CV.IsPhoneNumber = lazy('string/IsPhoneNumber', 'IsPhoneNumber');
export const IsPort: typeof CV.IsPort = lazy('string/IsPort', 'IsPort');
export const IsPositive: typeof CV.IsPositive = lazy('number/IsPositive', 'IsPositive');
export const IsPostalCode: typeof CV.IsPostalCode = lazy('string/IsPostalCode', 'IsPostalCode');
export const IsRFC3339: typeof CV.IsRFC3339 = lazy('string/IsRFC3339', 'IsRFC3339');
export const IsRgbColor: typeof CV.IsRgbColor = lazy('string/IsRgbColor', 'IsRgbColor');
export const IsSemVer: typeof CV.IsSemVer = lazy('string/IsSemVer', 'IsSemVer');
export const IsString: typeof CV.IsString = lazy('typechecker/IsString', 'IsString');
export const IsStrongPassword: typeof CV.IsStrongPassword = lazy(
  'string/IsStrongPassword',
  'IsStrongPassword',
);
export const IsSurrogatePair: typeof CV.IsSurrogatePair = lazy('string/IsSurrogatePair', 'IsSurrogatePair');
export const IsTaxId: typeof CV.IsTaxId = lazy('string/is-tax-id', 'IsTaxId');
export const IsTimeZone: typeof CV.IsTimeZone = lazy('string/IsTimeZone', 'IsTimeZone');
export const IsUppercase: typeof CV.IsUppercase = lazy('string/IsUppercase', 'IsUppercase');
export const IsUrl: typeof CV.IsUrl = lazy('string/IsUrl', 'IsUrl');
export const IsUUID: typeof CV.IsUUID = lazy('string/IsUUID', 'IsUUID');
export const IsVariableWidth: typeof CV.IsVariableWidth = lazy('string/IsVariableWidth', 'IsVariableWidth');
export const Length: typeof CV.Length = lazy('string/Length', 'Length');
export const Matches: typeof CV.Matches = lazy('string/Matches', 'Matches');
export const Max: typeof CV.Max = lazy('number/Max', 'Max');
export const MaxDate: typeof CV.MaxDate = lazy('date/MaxDate', 'MaxDate');
export const MaxLength: typeof CV.MaxLength = lazy('string/MaxLength', 'MaxLength');
export const Min: typeof CV.Min = lazy('number/Min', 'Min');
export const MinDate: typeof CV.MinDate = lazy('date/MinDate', 'MinDate');
export const MinLength: typeof CV.MinLength = lazy('string/MinLength', 'MinLength');
export const NotContains: typeof CV.NotContains = lazy('string/NotContains', 'NotContains');
export const NotEquals: typeof CV.NotEquals = lazy('common/NotEquals', 'NotEquals');
export const Validate: typeof CV.Validate = lazy('common/Validate', 'Validate');
export const ValidateBy: typeof CV.ValidateBy = lazy('common/ValidateBy', 'ValidateBy');
export const ValidateIf: typeof CV.ValidateIf = lazy('common/ValidateIf', 'ValidateIf');
export const ValidateNested: typeof CV.ValidateNested = lazy('common/ValidateNested', 'ValidateNested');
export const ValidatePromise: typeof CV.ValidatePromise = lazy('common/ValidatePromise', 'ValidatePromise');
export const ValidatorConstraint: typeof CV.ValidatorConstraint = lazy(
  'common/Validate',
  'ValidatorConstraint',
);

; Inno Setup 6.3+ script: the Windows installer of SML Lab, SML-Lab-Setup-<version>.exe.
;
; It wraps the one-folder application that `py dev.py frozen` writes to build\dist\SML Lab\
; (SML Lab.exe, smllab-console.exe, _internal\). Build it on Windows, from the checkout:
;
;     py build\windows\make_installer.py
;
; which reads the version from pyproject.toml and runs
;
;     ISCC /DAppVersion=<version> build\windows\smllab.iss
;
; Output: build\dist\SML-Lab-Setup-<version>.exe. The installer needs no administrator rights: it
; installs for the current user into %LOCALAPPDATA%\Programs\SML Lab, adds a Start-menu entry, a
; desktop shortcut if asked, an uninstaller (Settings > Apps), and opens .smllab sessions with
; SML Lab (per-user file association under HKCU\Software\Classes). Uninstalling removes the
; program folder and the association; the user's sessions and settings stay where they are.
; Relative paths below are relative to this script's folder (build\windows).

#ifndef AppVersion
  #error Pass the version: ISCC /DAppVersion=0.1.0 build\windows\smllab.iss (build\windows\make_installer.py does this)
#endif
#define AppName "SML Lab"
#define AppExe "SML Lab.exe"
#define AppDir "..\dist\SML Lab"
#define ProgId "SMLLab.Session"

[Setup]
; AppId identifies the installation for upgrades and the uninstaller: never change it.
AppId={{6F1C2B7E-4E2A-4C1B-9B7A-3D5E8A1F0C42}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=SML Lab
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
; per-user install, no UAC prompt ({autopf} is then %LOCALAPPDATA%\Programs)
PrivilegesRequired=lowest
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\dist
OutputBaseFilename=SML-Lab-Setup-{#AppVersion}
SetupIconFile=..\..\resources\icons\smllab.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName} {#AppVersion}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ChangesAssociations=yes
CloseApplications=yes

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "{#AppDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; Comment: "Statistical machine learning, step by step"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Registry]
; .smllab -> SMLLab.Session -> "SML Lab.exe" "<file>" (HKA = HKCU for a per-user install)
Root: HKA; Subkey: "Software\Classes\.smllab"; ValueType: string; ValueName: ""; ValueData: "{#ProgId}"; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\.smllab"; ValueType: string; ValueName: "Content Type"; ValueData: "application/x-smllab-session"; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\.smllab\OpenWithProgids"; ValueType: string; ValueName: "{#ProgId}"; ValueData: ""; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\{#ProgId}"; ValueType: string; ValueName: ""; ValueData: "SML Lab session"; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\{#ProgId}\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"",0"
Root: HKA; Subkey: "Software\Classes\{#ProgId}\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"" ""%1"""
Root: HKA; Subkey: "Software\Classes\Applications\{#AppExe}\SupportedTypes"; ValueType: string; ValueName: ".smllab"; ValueData: ""; Flags: uninsdeletekey
; .smllesson -> SMLLab.Lesson -> "SML Lab.exe" "<file>" (a lesson opens at its first step)
Root: HKA; Subkey: "Software\Classes\.smllesson"; ValueType: string; ValueName: ""; ValueData: "SMLLab.Lesson"; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\.smllesson"; ValueType: string; ValueName: "Content Type"; ValueData: "application/x-smllab-lesson"; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\.smllesson\OpenWithProgids"; ValueType: string; ValueName: "SMLLab.Lesson"; ValueData: ""; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\SMLLab.Lesson"; ValueType: string; ValueName: ""; ValueData: "SML Lab lesson"; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\SMLLab.Lesson\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"",0"
Root: HKA; Subkey: "Software\Classes\SMLLab.Lesson\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"" ""%1"""
Root: HKA; Subkey: "Software\Classes\Applications\{#AppExe}\SupportedTypes"; ValueType: string; ValueName: ".smllesson"; ValueData: ""; Flags: uninsdeletekey

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; anything the program folder gained after installation (the user's sessions live elsewhere)
Type: filesandordirs; Name: "{app}"

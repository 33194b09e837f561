module @jit_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3x3x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<3x3x8x8xf32>, %arg3: tensor<8xf32>, %arg4: tensor<3x3x8x8xf32>, %arg5: tensor<8xf32>, %arg6: tensor<3x3x8x8xf32>, %arg7: tensor<8xf32>, %arg8: tensor<3x3x8x8xf32>, %arg9: tensor<8xf32>, %arg10: tensor<3x3x8x8xf32>, %arg11: tensor<8xf32>, %arg12: tensor<3x3x8x8xf32>, %arg13: tensor<8xf32>, %arg14: tensor<3x3x8x8xf32>, %arg15: tensor<8xf32>, %arg16: tensor<3x3x8x8xf32>, %arg17: tensor<8xf32>, %arg18: tensor<3x3x8x8xf32>, %arg19: tensor<8xf32>, %arg20: tensor<3x3x8x8xf32>, %arg21: tensor<8xf32>, %arg22: tensor<3x3x8x8xf32>, %arg23: tensor<8xf32>, %arg24: tensor<3x3x8x8xf32>, %arg25: tensor<8xf32>, %arg26: tensor<3x3x8x8xf32>, %arg27: tensor<8xf32>, %arg28: tensor<3x3x8x8xf32>, %arg29: tensor<8xf32>, %arg30: tensor<3x3x8x8xf32>, %arg31: tensor<8xf32>, %arg32: tensor<3x3x8x8xf32>, %arg33: tensor<8xf32>, %arg34: tensor<3x3x8x8xf32>, %arg35: tensor<8xf32>, %arg36: tensor<3x3x8x8xf32>, %arg37: tensor<8xf32>, %arg38: tensor<128x10xf32>, %arg39: tensor<10xf32>, %arg40: tensor<2x8x8x3xf32>, %arg41: tensor<2x10xf32>) -> (tensor<3x3x3x8xf32> {jax.result_info = "result[0][0]"}, tensor<8xf32> {jax.result_info = "result[0][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[1][0]"}, tensor<8xf32> {jax.result_info = "result[1][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[2][0]"}, tensor<8xf32> {jax.result_info = "result[2][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[3][0]"}, tensor<8xf32> {jax.result_info = "result[3][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[4][0]"}, tensor<8xf32> {jax.result_info = "result[4][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[5][0]"}, tensor<8xf32> {jax.result_info = "result[5][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[6][0]"}, tensor<8xf32> {jax.result_info = "result[6][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[7][0]"}, tensor<8xf32> {jax.result_info = "result[7][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[8][0]"}, tensor<8xf32> {jax.result_info = "result[8][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[9][0]"}, tensor<8xf32> {jax.result_info = "result[9][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[10][0]"}, tensor<8xf32> {jax.result_info = "result[10][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[11][0]"}, tensor<8xf32> {jax.result_info = "result[11][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[12][0]"}, tensor<8xf32> {jax.result_info = "result[12][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[13][0]"}, tensor<8xf32> {jax.result_info = "result[13][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[14][0]"}, tensor<8xf32> {jax.result_info = "result[14][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[15][0]"}, tensor<8xf32> {jax.result_info = "result[15][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[16][0]"}, tensor<8xf32> {jax.result_info = "result[16][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[17][0]"}, tensor<8xf32> {jax.result_info = "result[17][1]"}, tensor<3x3x8x8xf32> {jax.result_info = "result[18][0]"}, tensor<8xf32> {jax.result_info = "result[18][1]"}, tensor<128x10xf32> {jax.result_info = "result[19][0]"}, tensor<10xf32> {jax.result_info = "result[19][1]"}) {
    %0 = stablehlo.convolution(%arg40, %arg0) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x3xf32>, tensor<3x3x3x8xf32>) -> tensor<2x8x8x8xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %3 = stablehlo.add %0, %2 : tensor<2x8x8x8xf32>
    %4 = call @relu(%3) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %7 = stablehlo.convolution(%4, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %8 = stablehlo.broadcast_in_dim %arg3, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %10 = stablehlo.add %7, %9 : tensor<2x8x8x8xf32>
    %11 = call @relu(%10) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %13 = stablehlo.compare GT, %10, %12, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %14 = stablehlo.convolution(%11, %arg4) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %15 = stablehlo.broadcast_in_dim %arg5, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %17 = stablehlo.add %14, %16 : tensor<2x8x8x8xf32>
    %18 = call @relu(%17) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %20 = stablehlo.compare GT, %17, %19, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %21 = stablehlo.convolution(%18, %arg6) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %22 = stablehlo.broadcast_in_dim %arg7, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %24 = stablehlo.add %21, %23 : tensor<2x8x8x8xf32>
    %25 = call @relu(%24) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %27 = stablehlo.compare GT, %24, %26, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %28 = stablehlo.convolution(%25, %arg8) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %29 = stablehlo.broadcast_in_dim %arg9, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %31 = stablehlo.add %28, %30 : tensor<2x8x8x8xf32>
    %32 = call @relu(%31) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %34 = stablehlo.compare GT, %31, %33, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %35 = stablehlo.convolution(%32, %arg10) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %36 = stablehlo.broadcast_in_dim %arg11, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %38 = stablehlo.add %35, %37 : tensor<2x8x8x8xf32>
    %39 = call @relu(%38) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %41 = stablehlo.compare GT, %38, %40, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %42 = stablehlo.convolution(%39, %arg12) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %43 = stablehlo.broadcast_in_dim %arg13, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %45 = stablehlo.add %42, %44 : tensor<2x8x8x8xf32>
    %46 = call @relu(%45) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %48 = stablehlo.compare GT, %45, %47, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %49 = stablehlo.convolution(%46, %arg14) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %50 = stablehlo.broadcast_in_dim %arg15, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %52 = stablehlo.add %49, %51 : tensor<2x8x8x8xf32>
    %53 = call @relu(%52) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %55 = stablehlo.compare GT, %52, %54, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %56 = stablehlo.convolution(%53, %arg16) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %57 = stablehlo.broadcast_in_dim %arg17, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %59 = stablehlo.add %56, %58 : tensor<2x8x8x8xf32>
    %60 = call @relu(%59) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %62 = stablehlo.compare GT, %59, %61, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %63 = stablehlo.convolution(%60, %arg18) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %64 = stablehlo.broadcast_in_dim %arg19, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %65 = stablehlo.broadcast_in_dim %64, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %66 = stablehlo.add %63, %65 : tensor<2x8x8x8xf32>
    %67 = call @relu(%66) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %69 = stablehlo.compare GT, %66, %68, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %70 = stablehlo.convolution(%67, %arg20) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %71 = stablehlo.broadcast_in_dim %arg21, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %73 = stablehlo.add %70, %72 : tensor<2x8x8x8xf32>
    %74 = call @relu(%73) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %76 = stablehlo.compare GT, %73, %75, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %77 = stablehlo.convolution(%74, %arg22) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %78 = stablehlo.broadcast_in_dim %arg23, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %79 = stablehlo.broadcast_in_dim %78, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %80 = stablehlo.add %77, %79 : tensor<2x8x8x8xf32>
    %81 = call @relu(%80) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %83 = stablehlo.compare GT, %80, %82, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %84 = stablehlo.convolution(%81, %arg24) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %85 = stablehlo.broadcast_in_dim %arg25, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %86 = stablehlo.broadcast_in_dim %85, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %87 = stablehlo.add %84, %86 : tensor<2x8x8x8xf32>
    %88 = call @relu(%87) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %90 = stablehlo.compare GT, %87, %89, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %91 = stablehlo.convolution(%88, %arg26) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %92 = stablehlo.broadcast_in_dim %arg27, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %93 = stablehlo.broadcast_in_dim %92, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %94 = stablehlo.add %91, %93 : tensor<2x8x8x8xf32>
    %95 = call @relu(%94) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %97 = stablehlo.compare GT, %94, %96, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %98 = stablehlo.convolution(%95, %arg28) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %99 = stablehlo.broadcast_in_dim %arg29, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %100 = stablehlo.broadcast_in_dim %99, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %101 = stablehlo.add %98, %100 : tensor<2x8x8x8xf32>
    %102 = call @relu(%101) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %103 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %104 = stablehlo.compare GT, %101, %103, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %105 = stablehlo.convolution(%102, %arg30) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %106 = stablehlo.broadcast_in_dim %arg31, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %107 = stablehlo.broadcast_in_dim %106, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %108 = stablehlo.add %105, %107 : tensor<2x8x8x8xf32>
    %109 = call @relu(%108) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %110 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %111 = stablehlo.compare GT, %108, %110, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %112 = stablehlo.convolution(%109, %arg32) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %113 = stablehlo.broadcast_in_dim %arg33, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %114 = stablehlo.broadcast_in_dim %113, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %115 = stablehlo.add %112, %114 : tensor<2x8x8x8xf32>
    %116 = call @relu(%115) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %117 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %118 = stablehlo.compare GT, %115, %117, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %119 = stablehlo.convolution(%116, %arg34) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %120 = stablehlo.broadcast_in_dim %arg35, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %121 = stablehlo.broadcast_in_dim %120, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %122 = stablehlo.add %119, %121 : tensor<2x8x8x8xf32>
    %123 = call @relu(%122) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %124 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %125 = stablehlo.compare GT, %122, %124, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %126 = stablehlo.convolution(%123, %arg36) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %127 = stablehlo.broadcast_in_dim %arg37, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %128 = stablehlo.broadcast_in_dim %127, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<2x8x8x8xf32>
    %129 = stablehlo.add %126, %128 : tensor<2x8x8x8xf32>
    %130 = call @relu(%129) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %131 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %132 = stablehlo.compare GT, %129, %131, FLOAT : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xi1>
    %cst_18 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %133 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<f32>
    %134 = "stablehlo.reduce_window"(%130, %133) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg42: tensor<f32>, %arg43: tensor<f32>):
      %427 = stablehlo.maximum %arg42, %arg43 : tensor<f32>
      stablehlo.return %427 : tensor<f32>
    }) : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x4x4x8xf32>
    %135 = stablehlo.reshape %134 : (tensor<2x4x4x8xf32>) -> tensor<2x128xf32>
    %136 = stablehlo.dot_general %135, %arg38, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x128xf32>, tensor<128x10xf32>) -> tensor<2x10xf32>
    %137 = stablehlo.broadcast_in_dim %arg39, dims = [1] : (tensor<10xf32>) -> tensor<1x10xf32>
    %138 = stablehlo.broadcast_in_dim %137, dims = [0, 1] : (tensor<1x10xf32>) -> tensor<2x10xf32>
    %139 = stablehlo.add %136, %138 : tensor<2x10xf32>
    %140:2 = call @log_softmax(%139) : (tensor<2x10xf32>) -> (tensor<2x10xf32>, tensor<2x1xf32>)
    %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %141 = stablehlo.negate %cst_19 : tensor<f32>
    %cst_20 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %142 = stablehlo.divide %141, %cst_20 : tensor<f32>
    %143 = stablehlo.broadcast_in_dim %142, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %144 = stablehlo.broadcast_in_dim %143, dims = [0] : (tensor<2xf32>) -> tensor<2x10xf32>
    %145 = stablehlo.multiply %144, %arg41 : tensor<2x10xf32>
    %146 = call @log_softmax_0(%140#0, %140#1, %145) : (tensor<2x10xf32>, tensor<2x1xf32>, tensor<2x10xf32>) -> tensor<2x10xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %147 = stablehlo.reduce(%146 init: %cst_21) applies stablehlo.add across dimensions = [0] : (tensor<2x10xf32>, tensor<f32>) -> tensor<10xf32>
    %148 = stablehlo.reshape %147 : (tensor<10xf32>) -> tensor<1x10xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %149 = stablehlo.reduce(%148 init: %cst_22) applies stablehlo.add across dimensions = [0] : (tensor<1x10xf32>, tensor<f32>) -> tensor<10xf32>
    %150 = stablehlo.dot_general %146, %135, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x10xf32>, tensor<2x128xf32>) -> tensor<10x128xf32>
    %151 = stablehlo.transpose %150, dims = [1, 0] : (tensor<10x128xf32>) -> tensor<128x10xf32>
    %152 = stablehlo.dot_general %146, %arg38, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x10xf32>, tensor<128x10xf32>) -> tensor<2x128xf32>
    %153 = stablehlo.reshape %152 : (tensor<2x128xf32>) -> tensor<2x4x4x8xf32>
    %cst_23 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %154 = stablehlo.pad %130, %cst_23, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %155 = "stablehlo.select_and_scatter"(%154, %153, %cst_24) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg42: tensor<f32>, %arg43: tensor<f32>):
      %427 = stablehlo.compare GE, %arg42, %arg43, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %427 : tensor<i1>
    }, {
    ^bb0(%arg42: tensor<f32>, %arg43: tensor<f32>):
      %427 = stablehlo.add %arg42, %arg43 : tensor<f32>
      stablehlo.return %427 : tensor<f32>
    }) : (tensor<2x8x8x8xf32>, tensor<2x4x4x8xf32>, tensor<f32>) -> tensor<2x8x8x8xf32>
    %156 = stablehlo.slice %155 [0:2, 0:8, 0:8, 0:8] : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %157 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %158 = stablehlo.select %132, %156, %157 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %159 = stablehlo.reduce(%158 init: %cst_26) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %160 = stablehlo.reshape %159 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %161 = stablehlo.reduce(%160 init: %cst_27) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %162 = stablehlo.convolution(%123, %158) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %163 = stablehlo.reverse %arg36, dims = [0, 1] : tensor<3x3x8x8xf32>
    %164 = stablehlo.convolution(%158, %163) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %165 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %166 = stablehlo.select %125, %164, %165 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %167 = stablehlo.reduce(%166 init: %cst_29) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %168 = stablehlo.reshape %167 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %169 = stablehlo.reduce(%168 init: %cst_30) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %170 = stablehlo.convolution(%116, %166) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %171 = stablehlo.reverse %arg34, dims = [0, 1] : tensor<3x3x8x8xf32>
    %172 = stablehlo.convolution(%166, %171) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %173 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %174 = stablehlo.select %118, %172, %173 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %175 = stablehlo.reduce(%174 init: %cst_32) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %176 = stablehlo.reshape %175 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %177 = stablehlo.reduce(%176 init: %cst_33) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %178 = stablehlo.convolution(%109, %174) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %179 = stablehlo.reverse %arg32, dims = [0, 1] : tensor<3x3x8x8xf32>
    %180 = stablehlo.convolution(%174, %179) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %181 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %182 = stablehlo.select %111, %180, %181 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %183 = stablehlo.reduce(%182 init: %cst_35) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %184 = stablehlo.reshape %183 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %185 = stablehlo.reduce(%184 init: %cst_36) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %186 = stablehlo.convolution(%102, %182) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %187 = stablehlo.reverse %arg30, dims = [0, 1] : tensor<3x3x8x8xf32>
    %188 = stablehlo.convolution(%182, %187) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %189 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %190 = stablehlo.select %104, %188, %189 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %191 = stablehlo.reduce(%190 init: %cst_38) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %192 = stablehlo.reshape %191 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %193 = stablehlo.reduce(%192 init: %cst_39) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %194 = stablehlo.convolution(%95, %190) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %195 = stablehlo.reverse %arg28, dims = [0, 1] : tensor<3x3x8x8xf32>
    %196 = stablehlo.convolution(%190, %195) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %197 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %198 = stablehlo.select %97, %196, %197 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %199 = stablehlo.reduce(%198 init: %cst_41) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %200 = stablehlo.reshape %199 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %201 = stablehlo.reduce(%200 init: %cst_42) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %202 = stablehlo.convolution(%88, %198) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %203 = stablehlo.reverse %arg26, dims = [0, 1] : tensor<3x3x8x8xf32>
    %204 = stablehlo.convolution(%198, %203) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %205 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %206 = stablehlo.select %90, %204, %205 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %207 = stablehlo.reduce(%206 init: %cst_44) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %208 = stablehlo.reshape %207 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %209 = stablehlo.reduce(%208 init: %cst_45) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %210 = stablehlo.convolution(%81, %206) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %211 = stablehlo.reverse %arg24, dims = [0, 1] : tensor<3x3x8x8xf32>
    %212 = stablehlo.convolution(%206, %211) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %213 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %214 = stablehlo.select %83, %212, %213 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %215 = stablehlo.reduce(%214 init: %cst_47) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %216 = stablehlo.reshape %215 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_48 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %217 = stablehlo.reduce(%216 init: %cst_48) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %218 = stablehlo.convolution(%74, %214) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %219 = stablehlo.reverse %arg22, dims = [0, 1] : tensor<3x3x8x8xf32>
    %220 = stablehlo.convolution(%214, %219) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %221 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %222 = stablehlo.select %76, %220, %221 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %223 = stablehlo.reduce(%222 init: %cst_50) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %224 = stablehlo.reshape %223 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_51 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %225 = stablehlo.reduce(%224 init: %cst_51) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %226 = stablehlo.convolution(%67, %222) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %227 = stablehlo.reverse %arg20, dims = [0, 1] : tensor<3x3x8x8xf32>
    %228 = stablehlo.convolution(%222, %227) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %229 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %230 = stablehlo.select %69, %228, %229 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_53 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %231 = stablehlo.reduce(%230 init: %cst_53) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %232 = stablehlo.reshape %231 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_54 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %233 = stablehlo.reduce(%232 init: %cst_54) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %234 = stablehlo.convolution(%60, %230) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %235 = stablehlo.reverse %arg18, dims = [0, 1] : tensor<3x3x8x8xf32>
    %236 = stablehlo.convolution(%230, %235) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_55 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %237 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %238 = stablehlo.select %62, %236, %237 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_56 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %239 = stablehlo.reduce(%238 init: %cst_56) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %240 = stablehlo.reshape %239 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_57 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %241 = stablehlo.reduce(%240 init: %cst_57) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %242 = stablehlo.convolution(%53, %238) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %243 = stablehlo.reverse %arg16, dims = [0, 1] : tensor<3x3x8x8xf32>
    %244 = stablehlo.convolution(%238, %243) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_58 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %245 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %246 = stablehlo.select %55, %244, %245 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %247 = stablehlo.reduce(%246 init: %cst_59) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %248 = stablehlo.reshape %247 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_60 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %249 = stablehlo.reduce(%248 init: %cst_60) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %250 = stablehlo.convolution(%46, %246) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %251 = stablehlo.reverse %arg14, dims = [0, 1] : tensor<3x3x8x8xf32>
    %252 = stablehlo.convolution(%246, %251) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %253 = stablehlo.broadcast_in_dim %cst_61, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %254 = stablehlo.select %48, %252, %253 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_62 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %255 = stablehlo.reduce(%254 init: %cst_62) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %256 = stablehlo.reshape %255 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_63 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %257 = stablehlo.reduce(%256 init: %cst_63) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %258 = stablehlo.convolution(%39, %254) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %259 = stablehlo.reverse %arg12, dims = [0, 1] : tensor<3x3x8x8xf32>
    %260 = stablehlo.convolution(%254, %259) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_64 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %261 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %262 = stablehlo.select %41, %260, %261 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_65 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %263 = stablehlo.reduce(%262 init: %cst_65) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %264 = stablehlo.reshape %263 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_66 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %265 = stablehlo.reduce(%264 init: %cst_66) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %266 = stablehlo.convolution(%32, %262) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %267 = stablehlo.reverse %arg10, dims = [0, 1] : tensor<3x3x8x8xf32>
    %268 = stablehlo.convolution(%262, %267) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_67 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %269 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %270 = stablehlo.select %34, %268, %269 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_68 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %271 = stablehlo.reduce(%270 init: %cst_68) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %272 = stablehlo.reshape %271 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_69 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %273 = stablehlo.reduce(%272 init: %cst_69) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %274 = stablehlo.convolution(%25, %270) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %275 = stablehlo.reverse %arg8, dims = [0, 1] : tensor<3x3x8x8xf32>
    %276 = stablehlo.convolution(%270, %275) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_70 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %277 = stablehlo.broadcast_in_dim %cst_70, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %278 = stablehlo.select %27, %276, %277 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_71 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %279 = stablehlo.reduce(%278 init: %cst_71) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %280 = stablehlo.reshape %279 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_72 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %281 = stablehlo.reduce(%280 init: %cst_72) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %282 = stablehlo.convolution(%18, %278) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %283 = stablehlo.reverse %arg6, dims = [0, 1] : tensor<3x3x8x8xf32>
    %284 = stablehlo.convolution(%278, %283) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_73 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %285 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %286 = stablehlo.select %20, %284, %285 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_74 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %287 = stablehlo.reduce(%286 init: %cst_74) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %288 = stablehlo.reshape %287 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_75 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %289 = stablehlo.reduce(%288 init: %cst_75) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %290 = stablehlo.convolution(%11, %286) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %291 = stablehlo.reverse %arg4, dims = [0, 1] : tensor<3x3x8x8xf32>
    %292 = stablehlo.convolution(%286, %291) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_76 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %293 = stablehlo.broadcast_in_dim %cst_76, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %294 = stablehlo.select %13, %292, %293 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_77 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %295 = stablehlo.reduce(%294 init: %cst_77) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %296 = stablehlo.reshape %295 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_78 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %297 = stablehlo.reduce(%296 init: %cst_78) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %298 = stablehlo.convolution(%4, %294) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x8x8xf32>
    %299 = stablehlo.reverse %arg2, dims = [0, 1] : tensor<3x3x8x8xf32>
    %300 = stablehlo.convolution(%294, %299) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<2x8x8x8xf32>
    %cst_79 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %301 = stablehlo.broadcast_in_dim %cst_79, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %302 = stablehlo.select %6, %300, %301 : tensor<2x8x8x8xi1>, tensor<2x8x8x8xf32>
    %cst_80 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %303 = stablehlo.reduce(%302 init: %cst_80) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %304 = stablehlo.reshape %303 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_81 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %305 = stablehlo.reduce(%304 init: %cst_81) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %306 = stablehlo.convolution(%arg40, %302) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x3xf32>, tensor<2x8x8x8xf32>) -> tensor<3x3x3x8xf32>
    %cst_82 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %307 = stablehlo.broadcast_in_dim %cst_82, dims = [] : (tensor<f32>) -> tensor<3x3x3x8xf32>
    %308 = stablehlo.multiply %307, %306 : tensor<3x3x3x8xf32>
    %309 = stablehlo.subtract %arg0, %308 : tensor<3x3x3x8xf32>
    %cst_83 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %310 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %311 = stablehlo.multiply %310, %305 : tensor<8xf32>
    %312 = stablehlo.subtract %arg1, %311 : tensor<8xf32>
    %cst_84 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %313 = stablehlo.broadcast_in_dim %cst_84, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %314 = stablehlo.multiply %313, %298 : tensor<3x3x8x8xf32>
    %315 = stablehlo.subtract %arg2, %314 : tensor<3x3x8x8xf32>
    %cst_85 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %316 = stablehlo.broadcast_in_dim %cst_85, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %317 = stablehlo.multiply %316, %297 : tensor<8xf32>
    %318 = stablehlo.subtract %arg3, %317 : tensor<8xf32>
    %cst_86 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %319 = stablehlo.broadcast_in_dim %cst_86, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %320 = stablehlo.multiply %319, %290 : tensor<3x3x8x8xf32>
    %321 = stablehlo.subtract %arg4, %320 : tensor<3x3x8x8xf32>
    %cst_87 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %322 = stablehlo.broadcast_in_dim %cst_87, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %323 = stablehlo.multiply %322, %289 : tensor<8xf32>
    %324 = stablehlo.subtract %arg5, %323 : tensor<8xf32>
    %cst_88 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %325 = stablehlo.broadcast_in_dim %cst_88, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %326 = stablehlo.multiply %325, %282 : tensor<3x3x8x8xf32>
    %327 = stablehlo.subtract %arg6, %326 : tensor<3x3x8x8xf32>
    %cst_89 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %328 = stablehlo.broadcast_in_dim %cst_89, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %329 = stablehlo.multiply %328, %281 : tensor<8xf32>
    %330 = stablehlo.subtract %arg7, %329 : tensor<8xf32>
    %cst_90 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %331 = stablehlo.broadcast_in_dim %cst_90, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %332 = stablehlo.multiply %331, %274 : tensor<3x3x8x8xf32>
    %333 = stablehlo.subtract %arg8, %332 : tensor<3x3x8x8xf32>
    %cst_91 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %334 = stablehlo.broadcast_in_dim %cst_91, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %335 = stablehlo.multiply %334, %273 : tensor<8xf32>
    %336 = stablehlo.subtract %arg9, %335 : tensor<8xf32>
    %cst_92 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %337 = stablehlo.broadcast_in_dim %cst_92, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %338 = stablehlo.multiply %337, %266 : tensor<3x3x8x8xf32>
    %339 = stablehlo.subtract %arg10, %338 : tensor<3x3x8x8xf32>
    %cst_93 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %340 = stablehlo.broadcast_in_dim %cst_93, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %341 = stablehlo.multiply %340, %265 : tensor<8xf32>
    %342 = stablehlo.subtract %arg11, %341 : tensor<8xf32>
    %cst_94 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %343 = stablehlo.broadcast_in_dim %cst_94, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %344 = stablehlo.multiply %343, %258 : tensor<3x3x8x8xf32>
    %345 = stablehlo.subtract %arg12, %344 : tensor<3x3x8x8xf32>
    %cst_95 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %346 = stablehlo.broadcast_in_dim %cst_95, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %347 = stablehlo.multiply %346, %257 : tensor<8xf32>
    %348 = stablehlo.subtract %arg13, %347 : tensor<8xf32>
    %cst_96 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %349 = stablehlo.broadcast_in_dim %cst_96, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %350 = stablehlo.multiply %349, %250 : tensor<3x3x8x8xf32>
    %351 = stablehlo.subtract %arg14, %350 : tensor<3x3x8x8xf32>
    %cst_97 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %352 = stablehlo.broadcast_in_dim %cst_97, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %353 = stablehlo.multiply %352, %249 : tensor<8xf32>
    %354 = stablehlo.subtract %arg15, %353 : tensor<8xf32>
    %cst_98 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %355 = stablehlo.broadcast_in_dim %cst_98, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %356 = stablehlo.multiply %355, %242 : tensor<3x3x8x8xf32>
    %357 = stablehlo.subtract %arg16, %356 : tensor<3x3x8x8xf32>
    %cst_99 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %358 = stablehlo.broadcast_in_dim %cst_99, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %359 = stablehlo.multiply %358, %241 : tensor<8xf32>
    %360 = stablehlo.subtract %arg17, %359 : tensor<8xf32>
    %cst_100 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %361 = stablehlo.broadcast_in_dim %cst_100, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %362 = stablehlo.multiply %361, %234 : tensor<3x3x8x8xf32>
    %363 = stablehlo.subtract %arg18, %362 : tensor<3x3x8x8xf32>
    %cst_101 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %364 = stablehlo.broadcast_in_dim %cst_101, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %365 = stablehlo.multiply %364, %233 : tensor<8xf32>
    %366 = stablehlo.subtract %arg19, %365 : tensor<8xf32>
    %cst_102 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %367 = stablehlo.broadcast_in_dim %cst_102, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %368 = stablehlo.multiply %367, %226 : tensor<3x3x8x8xf32>
    %369 = stablehlo.subtract %arg20, %368 : tensor<3x3x8x8xf32>
    %cst_103 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %370 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %371 = stablehlo.multiply %370, %225 : tensor<8xf32>
    %372 = stablehlo.subtract %arg21, %371 : tensor<8xf32>
    %cst_104 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %373 = stablehlo.broadcast_in_dim %cst_104, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %374 = stablehlo.multiply %373, %218 : tensor<3x3x8x8xf32>
    %375 = stablehlo.subtract %arg22, %374 : tensor<3x3x8x8xf32>
    %cst_105 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %376 = stablehlo.broadcast_in_dim %cst_105, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %377 = stablehlo.multiply %376, %217 : tensor<8xf32>
    %378 = stablehlo.subtract %arg23, %377 : tensor<8xf32>
    %cst_106 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %379 = stablehlo.broadcast_in_dim %cst_106, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %380 = stablehlo.multiply %379, %210 : tensor<3x3x8x8xf32>
    %381 = stablehlo.subtract %arg24, %380 : tensor<3x3x8x8xf32>
    %cst_107 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %382 = stablehlo.broadcast_in_dim %cst_107, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %383 = stablehlo.multiply %382, %209 : tensor<8xf32>
    %384 = stablehlo.subtract %arg25, %383 : tensor<8xf32>
    %cst_108 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %385 = stablehlo.broadcast_in_dim %cst_108, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %386 = stablehlo.multiply %385, %202 : tensor<3x3x8x8xf32>
    %387 = stablehlo.subtract %arg26, %386 : tensor<3x3x8x8xf32>
    %cst_109 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %388 = stablehlo.broadcast_in_dim %cst_109, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %389 = stablehlo.multiply %388, %201 : tensor<8xf32>
    %390 = stablehlo.subtract %arg27, %389 : tensor<8xf32>
    %cst_110 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %391 = stablehlo.broadcast_in_dim %cst_110, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %392 = stablehlo.multiply %391, %194 : tensor<3x3x8x8xf32>
    %393 = stablehlo.subtract %arg28, %392 : tensor<3x3x8x8xf32>
    %cst_111 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %394 = stablehlo.broadcast_in_dim %cst_111, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %395 = stablehlo.multiply %394, %193 : tensor<8xf32>
    %396 = stablehlo.subtract %arg29, %395 : tensor<8xf32>
    %cst_112 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %397 = stablehlo.broadcast_in_dim %cst_112, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %398 = stablehlo.multiply %397, %186 : tensor<3x3x8x8xf32>
    %399 = stablehlo.subtract %arg30, %398 : tensor<3x3x8x8xf32>
    %cst_113 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %400 = stablehlo.broadcast_in_dim %cst_113, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %401 = stablehlo.multiply %400, %185 : tensor<8xf32>
    %402 = stablehlo.subtract %arg31, %401 : tensor<8xf32>
    %cst_114 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %403 = stablehlo.broadcast_in_dim %cst_114, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %404 = stablehlo.multiply %403, %178 : tensor<3x3x8x8xf32>
    %405 = stablehlo.subtract %arg32, %404 : tensor<3x3x8x8xf32>
    %cst_115 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %406 = stablehlo.broadcast_in_dim %cst_115, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %407 = stablehlo.multiply %406, %177 : tensor<8xf32>
    %408 = stablehlo.subtract %arg33, %407 : tensor<8xf32>
    %cst_116 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %409 = stablehlo.broadcast_in_dim %cst_116, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %410 = stablehlo.multiply %409, %170 : tensor<3x3x8x8xf32>
    %411 = stablehlo.subtract %arg34, %410 : tensor<3x3x8x8xf32>
    %cst_117 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %412 = stablehlo.broadcast_in_dim %cst_117, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %413 = stablehlo.multiply %412, %169 : tensor<8xf32>
    %414 = stablehlo.subtract %arg35, %413 : tensor<8xf32>
    %cst_118 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %415 = stablehlo.broadcast_in_dim %cst_118, dims = [] : (tensor<f32>) -> tensor<3x3x8x8xf32>
    %416 = stablehlo.multiply %415, %162 : tensor<3x3x8x8xf32>
    %417 = stablehlo.subtract %arg36, %416 : tensor<3x3x8x8xf32>
    %cst_119 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %418 = stablehlo.broadcast_in_dim %cst_119, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %419 = stablehlo.multiply %418, %161 : tensor<8xf32>
    %420 = stablehlo.subtract %arg37, %419 : tensor<8xf32>
    %cst_120 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %421 = stablehlo.broadcast_in_dim %cst_120, dims = [] : (tensor<f32>) -> tensor<128x10xf32>
    %422 = stablehlo.multiply %421, %151 : tensor<128x10xf32>
    %423 = stablehlo.subtract %arg38, %422 : tensor<128x10xf32>
    %cst_121 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %424 = stablehlo.broadcast_in_dim %cst_121, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %425 = stablehlo.multiply %424, %149 : tensor<10xf32>
    %426 = stablehlo.subtract %arg39, %425 : tensor<10xf32>
    return %309, %312, %315, %318, %321, %324, %327, %330, %333, %336, %339, %342, %345, %348, %351, %354, %357, %360, %363, %366, %369, %372, %375, %378, %381, %384, %387, %390, %393, %396, %399, %402, %405, %408, %411, %414, %417, %420, %423, %426 : tensor<3x3x3x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<3x3x8x8xf32>, tensor<8xf32>, tensor<128x10xf32>, tensor<10xf32>
  }
  func.func private @relu(%arg0: tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x8xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x8x8x8xf32>
    return %1 : tensor<2x8x8x8xf32>
  }
  func.func private @log_softmax(%arg0: tensor<2x10xf32>) -> (tensor<2x10xf32>, tensor<2x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<2x10xf32>, tensor<f32>) -> tensor<2xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<2xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x10xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x10xf32>
    %6 = stablehlo.exponential %5 : tensor<2x10xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<2x10xf32>, tensor<f32>) -> tensor<2xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
    return %6, %8 : tensor<2x10xf32>, tensor<2x1xf32>
  }
  func.func private @log_softmax_0(%arg0: tensor<2x10xf32>, %arg1: tensor<2x1xf32>, %arg2: tensor<2x10xf32>) -> tensor<2x10xf32> {
    %0 = stablehlo.negate %arg2 : tensor<2x10xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x10xf32>, tensor<f32>) -> tensor<2xf32>
    %2 = stablehlo.reshape %1 : (tensor<2xf32>) -> tensor<2x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<2x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<2x1xf32>, tensor<f32>) -> tensor<2xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xf32>) -> tensor<2x10xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<2x10xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<2x10xf32>
    return %7 : tensor<2x10xf32>
  }
}
